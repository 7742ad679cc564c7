# The one entry point of the branch. "make help" lists the targets.
SHELL := /bin/bash
TOOLS := tools
ARCH ?= x86_64

.PHONY: help setup prepare tree export sendable status kunit kunit-all checkpatch percommit sanitize kcsan bench vm selftests rootfs um-fp ioprio-e2e icmp-paths nvme-e2e nvme-load blktests nvme-kmemleak model vectors vectors-check bisect bisect-demo test reset-tree

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{ printf "  make %-12s %s\n", $$1, $$2 }'

setup: ## install the Debian packages the branch needs (only missing ones)
	@$(TOOLS)/setup.sh

prepare: setup ## unpack the tarball into build/linux and apply the series (stops if the tree holds unexported work)
	@$(TOOLS)/prepare.sh

# What the targets that build and run the tree depend on: prepare, except
# that a tree holding unexported work is built as it is, with a note.
tree: setup
	@$(TOOLS)/prepare.sh --keep-work

export: ## write the tree's commits back to kernel-patches/
	@$(TOOLS)/export.sh

sendable: prepare ## write each group as a ready-to-send set (cover letter + patches) in build/send/GROUP/
	@$(TOOLS)/sendable.sh

status: ## fail if the tree holds work not exported to kernel-patches/
	@$(TOOLS)/status.sh

kunit: tree ## run the KUnit suites (ARCH=x86_64, arm64 or s390 under QEMU; ARCH=um natively as User Mode Linux)
	@$(TOOLS)/kunit.sh $(ARCH)

kunit-all: tree ## run the KUnit suites on every arch: um, x86_64, arm64 and s390
	@for a in um x86_64 arm64 s390; do $(TOOLS)/kunit.sh $$a || exit 1; done

checkpatch: tree ## checkpatch --strict and Fixes: tags on every patch
	@$(TOOLS)/checkpatch.sh

sanitize: tree ## the suites under KASAN + UBSAN, failing on any report (ARCH=x86_64, arm64, s390 or um)
	@$(TOOLS)/sanitize.sh $(ARCH) kasan

kcsan: tree ## the concurrency suite under KCSAN, failing on any report (ARCH=x86_64 or arm64)
	@$(TOOLS)/sanitize.sh $(ARCH) kcsan 'net_multipath_hash_concurrency'

bench: prepare ## figures, no pass/fail: hash cost per policy (ARCH=um: native), turnaround vs raw kunit.py, NVMe tcp_offload vs tcp in a guest (BENCH=hash|turnaround|nvme, BENCH_COLD=0)
	@BENCH_ARCH=$(ARCH) $(TOOLS)/bench.sh $(BENCH)

vm: tree ## boot the branch kernel in a guest on the host's root (read-only) and run CMD: make vm CMD='uname -a' (ARCH=x86_64, arm64 or um)
	@$(TOOLS)/vm.sh --arch $(ARCH) -- $(CMD)

selftests: tree ## the three forwarding selftests of the series, the ioprio end-to-end check, the ICMP path check and the NVMe/TCP offload end-to-end check, in guests (ARCH=x86_64, arm64 or um)
	@$(TOOLS)/selftests.sh --arch $(ARCH)
	@$(MAKE) -s ioprio-e2e
	@$(MAKE) -s icmp-paths
	@$(MAKE) -s nvme-e2e

rootfs: tree ## build (or check) the guest kernel and the Debian root of a guest not of the host's arch: make rootfs ARCH=arm64
	@$(TOOLS)/vm.sh --arch $(ARCH) --build-only

um-fp: tree ## in a User Mode Linux guest (whatever ARCH says): SSE, AVX and AVX-512 registers survive thread switches, fork and signal handlers
	@$(TOOLS)/um_fp.sh

ioprio-e2e: tree ## the ioprio end-to-end check alone, in a guest (null_blk, mq-deadline, cgroup v2; ARCH=x86_64, arm64 or um)
	@$(TOOLS)/vm.sh --arch $(ARCH) -- $(TOOLS)/ioprio_guest.sh

icmp-paths: tree ## in a guest, policy 1, two nexthops: 64 pings per family leave by the nexthop "ip route get" names, 64 forwarded ICMP errors per family by their flow's
	@$(TOOLS)/vm.sh --arch $(ARCH) -- $(TOOLS)/icmp_paths_guest.sh

nvme-e2e: tree ## in a guest, nvmet over TCP on 127.0.0.1: connect, data 512 B-1 MiB and disconnect through tcp_offload (software device on lo) and tcp, without and with digests; target faults and injected faults on tcp_offload
	@$(TOOLS)/vm.sh --arch $(ARCH) -- $(TOOLS)/nvme_guest.sh

nvme-load: tree ## in an x86_64 QEMU guest (2 CPUs): fio, 4 jobs at queue depth 32, 512 B-1 MiB random writes verified by crc32c, through tcp_offload and tcp with and without digests, then on tcp_offload with a fault injected mid-stream and a final verify
	@VM_MEMORY=3072 $(TOOLS)/vm.sh --arch x86_64 -- $(TOOLS)/nvme_load_guest.sh

blktests: tree ## blktests' nvme group in an x86_64 QEMU guest, host on tcp then on tcp_offload, target nvmet-tcp (BLKTESTS=path to a blktests checkout, default ../shared/blktests)
	@$(TOOLS)/blktests.sh

nvme-kmemleak: tree ## not in the gate: nvme-e2e in a QEMU guest with kmemleak and the transport as modules, their unload and reload, then no leak allocated through the NVMe host or target (ARCH=x86_64; arm64 not tried)
	@VM_BUILD_DIR=$(CURDIR)/build/vm-$(ARCH)-kmemleak VM_CONFIG_EXTRA=$(CURDIR)/kunit/kmemleak.config \
		$(TOOLS)/vm.sh --arch $(ARCH) -- $(TOOLS)/nvme_kmemleak_guest.sh $(CURDIR)/build/vm-$(ARCH)-kmemleak

percommit: prepare ## build and test every commit of the series on its own (User Mode Linux; PERCOMMIT_ARCH=x86_64: QEMU; PERCOMMIT_SANITIZE=1: KASAN + UBSAN)
	@ci/percommit.sh

model: ## build the multipath hash model (tools/mphash) and run its unit tests
	@$(MAKE) -s -C $(TOOLS)/mphash check

vectors: prepare ## regenerate the golden vectors in the tree from the model
	@$(TOOLS)/vectors.sh --write

vectors-check: tree ## check the tree's golden vectors equal the model's output
	@$(TOOLS)/vectors.sh --check

bisect: ## find the commit that moved flows: make bisect TREE_UNDER_TEST=dir GOOD=rev BAD=rev (your tree is never changed)
	@$(TOOLS)/bisect.sh "$(TREE_UNDER_TEST)" "$(GOOD)" "$(BAD)"

bisect-demo: prepare ## prove the bisect tool on a synthetic history (build/bisect-demo)
	@ci/bisect_demo.sh

test: ## the full gate (README lists its stages)
	@ci/test.sh

reset-tree: ## delete build/linux (refuses while it holds unexported work, and any tree the tools did not make)
	@$(TOOLS)/reset_tree.sh

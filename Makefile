# The one entry point of the branch. "make help" lists the targets.
SHELL := /bin/bash
TOOLS := tools
ARCH ?= x86_64

.PHONY: help setup prepare tree export sendable status kunit kunit-all checkpatch percommit sanitize kcsan bench vm selftests shell rootfs um-fp um-fp-amx ioprio-e2e nvme-e2e nvme-load blktests nvme-kmemleak model vectors vectors-check hash-diff hash-diff-demo test reset-tree

##@ Start here
# Each target's line says what it costs: the time of a run once its
# kernel is built; "+" when it builds a kernel first (5-13 min the first
# time, 15-25 s after an edit).
help: ## [seconds] list the targets, by group, with what each costs
	@awk '/^##@ / { printf "\n%s\n", substr($$0, 5) } \
		/^[a-z0-9-]+:.*## / { name = $$0; sub(/:.*/, "", name); \
			text = $$0; sub(/^[^#]*## /, "", text); \
			printf "  make %-14s %s\n", name, text }' $(MAKEFILE_LIST)
	@echo
	@echo '[cost]: a run once its kernel is built; "+": builds a kernel first, 5-13 min the first time'

setup: ## [seconds] install the Debian packages the branch needs (only missing ones)
	@$(TOOLS)/setup.sh

prepare: setup ## [1-2 min] unpack the tarball into build/linux and apply the series (stops if the tree holds unexported work)
	@$(TOOLS)/tree/prepare.sh

kunit: tree ## [minutes+] run the KUnit suites and count them; a warning or oops in the kernel log fails (ARCH=x86_64, arm64 or s390 under QEMU; ARCH=um natively as User Mode Linux)
	@$(TOOLS)/kunit/kunit_checked.sh $(ARCH) $(ARCH) -

test: ## [about 55 min warm, 90+ cold] the full gate (README lists its stages)
	@ci/test.sh

##@ The tree and the series
status: ## [seconds] fail if the tree holds work not exported to kernel-patches/
	@$(TOOLS)/tree/status.sh

export: ## [seconds] write the tree's commits back to kernel-patches/
	@$(TOOLS)/tree/export.sh

checkpatch: tree ## [minutes] checkpatch --strict and Fixes: tags on every patch
	@$(TOOLS)/tree/checkpatch.sh

sendable: prepare ## [seconds] write each group as a ready-to-send set (cover letter + patches) in build/send/GROUP/
	@$(TOOLS)/tree/sendable.sh

percommit: prepare ## [15-35 min] build and test every commit of the series on its own (User Mode Linux; PERCOMMIT_ARCH=x86_64: QEMU; PERCOMMIT_SANITIZE=1: KASAN + UBSAN)
	@ci/percommit.sh

reset-tree: ## [seconds] delete build/linux (refuses while it holds unexported work, and any tree the tools did not make)
	@$(TOOLS)/tree/reset_tree.sh

# What the targets that build and run the tree depend on: prepare, except
# that a tree holding unexported work is built as it is, with a note.
tree: setup
	@$(TOOLS)/tree/prepare.sh --keep-work

##@ KUnit runs
kunit-all: tree ## [4 x kunit] run the KUnit suites on every arch: um, x86_64, arm64 and s390
	@for a in um x86_64 arm64 s390; do $(MAKE) -s kunit ARCH=$$a || exit 1; done

sanitize: tree ## [minutes+] the suites under KASAN + UBSAN, failing on any report (ARCH=x86_64, arm64, s390 or um)
	@$(TOOLS)/kunit/sanitize.sh $(ARCH) kasan

kcsan: tree ## [minutes+] every suite under KCSAN, failing on any report (ARCH=x86_64 or arm64)
	@$(TOOLS)/kunit/sanitize.sh $(ARCH) kcsan

##@ Guests (the branch kernel booted under QEMU or as User Mode Linux)
vm: tree ## [a minute+] boot the branch kernel in a guest on the host's root (read-only) and run CMD: make vm CMD='uname -a' (ARCH=x86_64, arm64 or um)
	@$(TOOLS)/guest/vm.sh --arch $(ARCH) -- $(CMD)

shell: tree ## [a minute+] an interactive shell in a guest on the branch kernel (ARCH=um or x86_64; arm64 too); leaving it powers the guest off
	@$(TOOLS)/guest/vm.sh --arch $(ARCH) --interactive

rootfs: tree ## [minutes+] build (or check) the guest kernel and the Debian root of a guest not of the host's arch: make rootfs ARCH=arm64
	@$(TOOLS)/guest/vm.sh --arch $(ARCH) --build-only

selftests: tree ## [minutes+] the four forwarding selftests of the series (custom hash, GRE, ip6gre; which nexthop packets leave by), the ioprio end-to-end check and the NVMe/TCP offload end-to-end check, in guests (ARCH=x86_64, arm64 or um)
	@$(TOOLS)/guest/selftests.sh --arch $(ARCH)
	@$(MAKE) -s ioprio-e2e
	@$(MAKE) -s nvme-e2e

um-fp: tree ## [seconds+] in a User Mode Linux guest (whatever ARCH says): SSE, AVX and AVX-512 registers survive thread switches, fork and signal handlers
	@$(TOOLS)/guest/um_fp.sh

um-fp-amx: tree ## [a minute+; stock UML's build once, minutes] um-fp on an AMX host's ptrace (11008-byte XSAVE area, tools/guest/um_amx_shim.c preloaded into UML), and stock 6.12 UML dying under it with errno 14
	@$(TOOLS)/guest/um_fp_amx.sh

ioprio-e2e: tree ## [a minute+] the ioprio end-to-end check alone, in a guest (null_blk, mq-deadline, cgroup v2; ARCH=x86_64, arm64 or um)
	@$(TOOLS)/guest/vm.sh --arch $(ARCH) -- $(TOOLS)/guest/ioprio_guest.sh

nvme-e2e: tree ## [a minute+] in a guest, nvmet over TCP on 127.0.0.1: connect, data 512 B-1 MiB and disconnect through tcp_offload (software device on lo) and tcp, without and with digests; target faults and injected faults on tcp_offload
	@VM_APPEND="nvme_tcp_offload_sw.ifnames=lo,nvd0 $(VM_APPEND)" \
		$(TOOLS)/guest/vm.sh --arch $(ARCH) -- $(TOOLS)/nvme/nvme_guest.sh

nvme-load: tree ## [minutes+] in an x86_64 QEMU guest (2 CPUs, lockdep): fio, 4 jobs at queue depth 32, 512 B-1 MiB random writes verified by crc32c, through tcp_offload and tcp with and without digests, then on tcp_offload with faults injected mid-stream and a final verify; overwrites checked block by block for their last generation, on one path and on two (native multipath)
	@VM_MEMORY=3072 $(TOOLS)/guest/vm.sh --arch x86_64 -- $(TOOLS)/nvme/nvme_load_guest.sh

blktests: tree ## [15 min+] blktests' nvme group in an x86_64 QEMU guest, host on tcp then on tcp_offload, target nvmet-tcp (BLKTESTS=path to a blktests checkout, default ../shared/blktests)
	@$(TOOLS)/nvme/blktests.sh

nvme-kmemleak: tree ## [minutes+] not in the gate: nvme-e2e in a QEMU guest with kmemleak and the transport as modules, their unload and reload, then no leak allocated through the NVMe host or target (ARCH=x86_64; arm64 not tried)
	@VM_BUILD_DIR=$(CURDIR)/build/vm-$(ARCH)-kmemleak VM_CONFIG_EXTRA=$(CURDIR)/kunit/kmemleak.config \
		$(TOOLS)/guest/vm.sh --arch $(ARCH) -- $(TOOLS)/nvme/nvme_kmemleak_guest.sh $(CURDIR)/build/vm-$(ARCH)-kmemleak

##@ Hash model, golden vectors and hash regressions
model: ## [seconds] build the multipath hash model (tools/hash/mphash) and run its unit tests
	@$(MAKE) -s -C $(TOOLS)/hash/mphash check

vectors: prepare ## [seconds] regenerate the golden vectors in the tree from the model
	@$(TOOLS)/hash/vectors.sh --write

vectors-check: tree ## [seconds] check the tree's golden vectors equal the model's output
	@$(TOOLS)/hash/vectors.sh --check

hash-diff: ## [minutes+ per step] did GOOD..BAD of any tree (Linux 6.11+) move flows, and which commit: make hash-diff TREE_UNDER_TEST=dir GOOD=rev BAD=rev [EACH=1: a row per commit] (your tree is never changed)
	@$(TOOLS)/hash/hash_diff.sh $(if $(filter 1,$(EACH)),--each) "$(TREE_UNDER_TEST)" "$(GOOD)" "$(BAD)"

hash-diff-demo: prepare ## [minutes+] prove hash-diff on a synthetic history on the stock base (build/hash-diff-demo)
	@ci/hash_diff_demo.sh

##@ Figures
bench: prepare ## [minutes+] figures, no pass/fail: hash cost per policy (ARCH=um: native), turnaround vs raw kunit.py, NVMe tcp_offload vs tcp in a guest (BENCH=hash|turnaround|nvme, BENCH_COLD=0)
	@BENCH_ARCH=$(ARCH) $(TOOLS)/kunit/bench.sh $(BENCH)

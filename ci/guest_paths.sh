#!/usr/bin/env bash
# Prove that the guests work from a checkout anywhere, in particular under
# the folders tools/guest/vm-init.sh covers with tmpfs (/tmp, /root): copy this
# checkout's tracked files to a fresh folder under each of them and run the
# ioprio end-to-end check from that copy, with the copy's own tools/ and
# command file. The guest kernel and the tree are this checkout's (built
# once, reused; the kernel's folder is $VM_BUILD_DIR when set, as for
# tools/guest/vm.sh). Ends with "guest-paths: N passed, N failed", one case per
# folder.
#
#   ci/guest_paths.sh [--arch x86_64|arm64|um] [PARENT...]
#
# The default arch is x86_64, the default parents /tmp and /root.
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"

arch=x86_64
if [ "${1:-}" = --arch ]; then
	arch=${2:?usage: ci/guest_paths.sh [--arch ARCH] [PARENT...]}
	shift 2
fi
[ $# -gt 0 ] || set -- /tmp /root
mkdir -p "$TOP/build/logs"
"$TOP/tools/guest/vm.sh" --arch "$arch" --build-only || die "cannot build the guest kernel"

copies=()
trap 'rm -rf "${copies[@]}"' EXIT
passed=0 failed=0
for parent in "$@"; do
	copy=$(mktemp -d "$parent/mphash-ioprio-checkout.XXXXXX") || die "cannot make a folder in $parent"
	copies+=("$copy")
	copy_checkout "$copy" || die "cannot copy $TOP to $copy"
	echo "== checkout copy in $copy"
	if (cd "$copy" && TREE="$TREE" VM_BUILD_DIR="${VM_BUILD_DIR:-$TOP/build/vm-$arch}" \
		tools/guest/vm.sh --arch "$arch" -- "$copy/tools/guest/ioprio_guest.sh") >"$copy.log" 2>&1 &&
		grep -q '^ioprio-e2e: [1-9][0-9]* passed, 0 failed' "$copy.log"; then
		grep '^ioprio-e2e: ' "$copy.log" | sed 's/^/    /'
		passed=$((passed + 1))
	else
		grep -E '^(vm-init|vm.sh|ioprio-e2e)' "$copy.log" | tail -n 10 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
	mv "$copy.log" "$TOP/build/logs/guest-paths-${parent//\//_}.log"
done
echo "guest-paths: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

# Sourced by the check scripts that count their own cases, on the host
# (tools/guest/um_fp_amx.sh) and in guests (tools/nvme/nvme_target.sh):
# check NAME COMMAND...: one case, passed when COMMAND succeeds; prints
# "ok    NAME" or "FAIL  NAME" and counts it in $passed and $failed.
passed=0 failed=0
check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok    $name"
		passed=$((passed + 1))
	else
		echo "FAIL  $name"
		failed=$((failed + 1))
	fi
}

#!/usr/bin/env bash
# Install the Debian packages the branch needs, only those missing.
# Run as root on Debian bookworm; a second run installs nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# tools/packages lists them, with why each is needed.
mapfile -t PACKAGES < <(base_field package; sed -e 's/#.*//' "$TOP/tools/packages" | awk 'NF { print $1 }')

missing=()
for p in "${PACKAGES[@]}"; do
	if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	info "all ${#PACKAGES[@]} packages present"
	exit 0
fi
# SETUP_OS_RELEASE: another os-release file (ci/newcomer.sh's fake one).
release=$(. "${SETUP_OS_RELEASE:-/etc/os-release}" 2>/dev/null &&
	echo "${ID:-unknown} ${VERSION_CODENAME:-}")
[ "$release" = "debian bookworm" ] ||
	die "missing packages (${missing[*]}), and this is '$release', not Debian bookworm, whose package names this list uses: install them by hand"
[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run as root"
info "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"

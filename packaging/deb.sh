#!/bin/sh
# deb.sh VERSION ARCH BIN OUT: builds OUT/agate_VERSION_ARCH.deb with
# dpkg-deb from the binaries in BIN: /usr/bin/agate (the tray app),
# agate-cli (the command line, no GUI) and agate-hook (what agents run per
# tool call), the icon, the desktop entry, the autostart template and the
# systemd user unit (see install.sh). `make package` runs it.
set -eu
[ $# -eq 4 ] || { echo "usage: deb.sh VERSION ARCH BIN OUT" >&2; exit 2; }
version=$1 arch=$2 bin=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/agate-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"

"$here/install.sh" "$stage" /usr "$bin" >/dev/null
install -D -m 0644 "$here/copyright" "$stage/usr/share/doc/agate/copyright"
size=$(du -sk "$stage/usr" | cut -f1)
mkdir -p "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: agate
Version: $version
Architecture: $arch
Maintainer: ${DEB_MAINTAINER:-agate maintainers <maintainers@agate.invalid>}
Installed-Size: $size
Section: utils
Priority: optional
Depends: libc6, libgl1, libx11-6, libxcursor1, libxrandr2, libxinerama1, libxi6, libxxf86vm1
Recommends: libgl1-mesa-dri, bubblewrap, gnome-keyring | kwalletmanager
Homepage: https://github.com/agatehq/agate
Description: permission gate for AI agents
 agate decides every tool call an AI agent makes (Claude Code, Gemini CLI,
 Cursor, MCP clients): allow, deny, or ask you in a native popup, from a
 layered policy that explains itself. It confines commands in an OS
 sandbox and keeps provider keys sealed.
 .
 agate is the tray app; agate-cli the same commands without the GUI;
 agate-hook the small binary agents run on every tool call.
CONTROL
mkdir -p "$out"
deb="$out/agate_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"

#!/bin/sh
# install.sh DESTDIR PREFIX BIN: installs agate under PREFIX, staged in
# DESTDIR (empty for a direct install):
#   PREFIX/bin/agate, agate-cli, agate-hook      the binaries from BIN
#   PREFIX/share/applications/dev.agate.agate.desktop
#   PREFIX/share/icons/hicolor/256x256/apps/dev.agate.agate.png
#   PREFIX/share/agate/agate-autostart.desktop   a template (see its comment)
#   PREFIX/lib/systemd/user/agate.service        the headless daemon
# `make install` and `make package` (packaging/deb.sh) use it.
set -eu
[ $# -eq 3 ] || { echo "usage: install.sh DESTDIR PREFIX BIN" >&2; exit 2; }
destdir=$1 prefix=$2 bin=$3
here=$(cd "$(dirname "$0")" && pwd)
root="$destdir$prefix"

subst() { # subst SRC DEST MODE: copies SRC with @BINDIR@ and @DATADIR@ filled in
	mkdir -p "$(dirname "$2")"
	sed -e "s|@BINDIR@|$prefix/bin|g" -e "s|@DATADIR@|$prefix/share|g" "$1" >"$2.tmp"
	chmod "$3" "$2.tmp"
	mv "$2.tmp" "$2"
}

for b in agate agate-cli agate-hook; do
	[ -x "$bin/$b" ] || { echo "install.sh: $bin/$b is missing: make build first" >&2; exit 1; }
done
install -d "$root/bin"
for b in agate agate-cli agate-hook; do
	install -m 0755 "$bin/$b" "$root/bin/$b"
done
install -D -m 0644 "$here/../assets/icon.png" "$root/share/icons/hicolor/256x256/apps/dev.agate.agate.png"
subst "$here/agate.desktop" "$root/share/applications/dev.agate.agate.desktop" 0644
subst "$here/agate-autostart.desktop" "$root/share/agate/agate-autostart.desktop" 0644
subst "$here/agate.service" "$root/lib/systemd/user/agate.service" 0644
if [ -z "$destdir" ]; then
	# Refresh the desktop's caches when installing for real.
	command -v update-desktop-database >/dev/null && update-desktop-database -q "$prefix/share/applications" || true
	command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" || true
fi
echo "installed agate in $root"

#!/usr/bin/env bash
# Installs, when missing, the Debian/Ubuntu packages agate's build and
# tests need. Usage: .ci/deps.sh [build] [test] [desktop]
#   build    cgo, GL and X11 headers for the Fyne desktop app
#   test     Xvfb, D-Bus, gnome-keyring (a real Secret Service), bubblewrap,
#            zsh (the shell quoter is read back in bash and zsh)
#   desktop  a notification daemon, xdotool and imagemagick for the
#            end-to-end desktop test and screenshots
#   agents   tmux, the terminal the agents' interactive UIs run in; podman
#            and runc, the container engine an agent in a dev container runs in
#   harm     the programs the harm corpus's attacks run (testdata/harm)
# Nothing is installed when everything is present; apt-get runs only for
# what is absent.
set -euo pipefail

want=()
for set in "$@"; do
  case "$set" in
    build) want+=(gcc libc6-dev pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev
                  libxinerama-dev libxi-dev libxxf86vm-dev) ;;
    test) want+=(ca-certificates xvfb xauth libgl1-mesa-dri dbus dbus-x11 gnome-keyring bubblewrap
                 uidmap util-linux procps zsh) ;;
    desktop) want+=(xdotool imagemagick dunst libnotify-bin libglib2.0-bin x11-utils) ;;
    agents) want+=(tmux podman runc) ;;
    harm) want+=(busybox dc dnsutils m4 python3-pytest rsync moreutils git python3 curl) ;;
    *) echo "deps.sh: unknown set $set" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "deps.sh: missing packages ${missing[*]}, and there is no apt-get to install them" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps.sh: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# An update is needed on a fresh machine whose package lists are empty.
if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/agate-apt.log 2>&1; then
  $sudo apt-get update -qq >>/tmp/agate-apt.log 2>&1
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/agate-apt.log 2>&1 || {
    tail -20 /tmp/agate-apt.log >&2; exit 1; }
fi

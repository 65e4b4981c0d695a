# Shared set-up for the scripts in this directory. Source it; don't run it.

# need_go stops with a clear message when the Go toolchain is missing.
need_go() {
  if ! command -v go >/dev/null 2>&1; then
    echo "$(basename "$0"): go is not on PATH; install Go 1.26 or newer from your package manager" >&2
    exit 1
  fi
}

# need_packages CMD:PACKAGE... installs, with apt-get, each Debian PACKAGE
# whose CMD is not on PATH. Without root or apt-get it names what is missing
# and stops.
need_packages() {
  local missing=() spec
  for spec in "$@"; do
    command -v "${spec%%:*}" >/dev/null 2>&1 || missing+=("${spec#*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "$(basename "$0"): missing ${missing[*]}; install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}) and run again" >&2
    exit 1
  fi
  echo "$(basename "$0"): installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
    echo "$(basename "$0"): apt-get could not install ${missing[*]}; install them by hand and run again" >&2
    exit 1
  fi
  for spec in "$@"; do
    if ! command -v "${spec%%:*}" >/dev/null 2>&1; then
      echo "$(basename "$0"): ${spec%%:*} is still missing after installing ${spec#*:}" >&2
      exit 1
    fi
  done
}

# start_xvfb starts a private X server on a free display number, exports
# DISPLAY, and stops the server when the calling script exits.
start_xvfb() {
  local n
  for n in $(seq 91 140); do
    [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break
  done
  Xvfb ":$n" -screen 0 1920x1200x24 -nolisten tcp >/dev/null 2>&1 &
  XVFB_PID=$!
  trap 'kill "$XVFB_PID" 2>/dev/null || true' EXIT
  local i
  for i in $(seq 1 100); do
    [ -S "/tmp/.X11-unix/X$n" ] && break
    sleep 0.05
  done
  if [ ! -S "/tmp/.X11-unix/X$n" ]; then
    echo "$(basename "$0"): Xvfb did not start on :$n" >&2
    exit 1
  fi
  export DISPLAY=":$n"
}

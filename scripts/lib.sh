# Shared set-up for the scripts in this directory. Source it; don't run it.

# need_go stops with a clear message when the Go toolchain is missing.
need_go() {
  if ! command -v go >/dev/null 2>&1; then
    echo "$(basename "$0"): go is not on PATH; install Go 1.26 or newer from your package manager" >&2
    exit 1
  fi
}

# need_packages [--no-install-recommends] CMD:PACKAGE... installs, with
# apt-get, each Debian PACKAGE whose CMD is not on PATH (or, for a CMD that
# is an absolute path, not there: a package with no program); the flag
# keeps apt-get to their dependencies. Without root or apt-get it names
# what is missing and stops.
have() {
  case $1 in
  /*) [ -e "$1" ] ;;
  *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}
need_packages() {
  local missing=() spec flags=()
  if [ "${1:-}" = --no-install-recommends ]; then
    flags+=("$1")
    shift
  fi
  for spec in "$@"; do
    have "${spec%%:*}" || missing+=("${spec#*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "$(basename "$0"): missing ${missing[*]}; install them (Debian/Ubuntu: sudo apt-get install ${flags[*]:+${flags[*]} }${missing[*]}) and run again" >&2
    exit 1
  fi
  echo "$(basename "$0"): installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  # One apt-get update per script, however many calls need packages.
  if [ -z "${APT_UPDATED:-}" ]; then
    apt-get update -qq || { echo "$(basename "$0"): apt-get update failed; install ${missing[*]} by hand and run again" >&2; exit 1; }
    APT_UPDATED=1
  fi
  if ! apt-get install -y -qq ${flags[@]+"${flags[@]}"} "${missing[@]}" >/dev/null; then
    echo "$(basename "$0"): apt-get could not install ${missing[*]}; install them by hand and run again" >&2
    exit 1
  fi
  for spec in "$@"; do
    if ! have "${spec%%:*}"; then
      echo "$(basename "$0"): ${spec%%:*} is still missing after installing ${spec#*:}" >&2
      exit 1
    fi
  done
}

# at_exit CMD runs the shell command CMD when the calling script exits, after
# those registered before it, so start_xvfb and start_sway each stop their
# own server. A script that sets its own EXIT trap replaces them all.
AT_EXIT=()
at_exit() {
  AT_EXIT+=("$1")
  # One failing clean-up must not skip the others.
  trap 'for cmd in "${AT_EXIT[@]}"; do eval "$cmd" || true; done' EXIT
}

# need_agents exports ASK_CONFIRM_CLAUDE, ASK_CONFIRM_GEMINI and
# ASK_CONFIRM_CODEX, the real Claude Code, Gemini CLI and Codex that the
# hook's agent tests run, installed with npm ci into a cache directory on
# first use, every package at the version scripts/agents/package-lock.json
# pins (the cache is named by the lockfile's hash, so a changed lockfile
# installs afresh). Without node and npm, or when npm ci fails twice, it
# says so and exits.
need_agents() {
  local lockdir cache hash tool tmp major
  lockdir=$(pwd)/scripts/agents
  for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$(basename "$0"): $tool is not on PATH; install Node.js 20 or newer, which the agent hosts' tests need" >&2
      exit 1
    fi
  done
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 20 ]; then
    echo "$(basename "$0"): Node.js $(node --version) is too old for the agent hosts; install Node.js 20 or newer" >&2
    exit 1
  fi
  if [ ! -s "$lockdir/package-lock.json" ]; then
    echo "$(basename "$0"): scripts/agents/package-lock.json is missing" >&2
    exit 1
  fi
  hash=$(cat "$lockdir/package.json" "$lockdir/package-lock.json" | sha256sum | cut -c1-12)
  cache=${ASK_CONFIRM_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ask-confirm-dev/agents-$hash}
  if ! agents_run "$cache"; then
    echo "$(basename "$0"): installing the agent hosts from scripts/agents/package-lock.json into $cache"
    # Into a directory of its own, moved into place whole: two runs never
    # share a half-made one. With the packages' install scripts: Claude
    # Code's puts the program of this platform in place. Its own npm cache,
    # and one retry, for a registry's hiccup.
    mkdir -p "$(dirname "$cache")"
    tmp=$(mktemp -d "$cache.XXXXXX")
    cp "$lockdir/package.json" "$lockdir/package-lock.json" "$tmp/"
    if ! npm ci --prefix "$tmp" --cache "$tmp/.npm" --no-audit --no-fund --loglevel=error >&2; then
      echo "$(basename "$0"): npm ci failed; trying once more in 5s" >&2
      sleep 5
      npm ci --prefix "$tmp" --cache "$tmp/.npm" --no-audit --no-fund --loglevel=error >&2 || true
    fi
    if ! agents_run "$tmp"; then
      rm -rf "$tmp"
      echo "$(basename "$0"): the agent hosts did not install from npm, or do not run (is npm told to skip install scripts?); see above" >&2
      exit 1
    fi
    rm -rf "$cache" "$tmp/.npm"
    mv "$tmp" "$cache"
  fi
  ASK_CONFIRM_CLAUDE=$cache/node_modules/.bin/claude
  ASK_CONFIRM_GEMINI=$cache/node_modules/.bin/gemini
  ASK_CONFIRM_CODEX=$cache/node_modules/.bin/codex
  export ASK_CONFIRM_CLAUDE ASK_CONFIRM_GEMINI ASK_CONFIRM_CODEX
}

# agents_run DIR reports whether the agent hosts installed in DIR run.
agents_run() {
  "$1/node_modules/.bin/claude" --version >/dev/null 2>&1 &&
    "$1/node_modules/.bin/gemini" --version >/dev/null 2>&1 &&
    "$1/node_modules/.bin/codex" --version >/dev/null 2>&1
}

# need_webapp exports ASK_CONFIRM_PLAYWRIGHT, the node_modules directory
# that holds playwright-core, which the phone's web-app test drives
# Debian's chromium with (cmd/phone_webapp_e2e_test.go, through
# scripts/webapp/phone.js), installed with npm ci into a cache directory on
# first use at the version scripts/webapp/package-lock.json pins (the cache
# is named by the lockfile's hash). No browser is downloaded: the test runs
# /usr/bin/chromium (need_packages chromium:chromium). Without node and npm,
# or when npm ci fails twice, it says so and exits.
need_webapp() {
  local lockdir cache hash tmp tool
  lockdir=$(pwd)/scripts/webapp
  for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$(basename "$0"): $tool is not on PATH; install Node.js 20 or newer, which the web app's test needs" >&2
      exit 1
    fi
  done
  hash=$(cat "$lockdir/package.json" "$lockdir/package-lock.json" | sha256sum | cut -c1-12)
  cache=${ASK_CONFIRM_WEBAPP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ask-confirm-dev/webapp-$hash}
  if [ ! -f "$cache/node_modules/playwright-core/package.json" ]; then
    echo "$(basename "$0"): installing playwright-core from scripts/webapp/package-lock.json into $cache"
    # As need_agents does: into a directory of its own, moved into place
    # whole, with one retry. No install scripts: playwright-core has none,
    # and no browser download happens without one.
    mkdir -p "$(dirname "$cache")"
    tmp=$(mktemp -d "$cache.XXXXXX")
    cp "$lockdir/package.json" "$lockdir/package-lock.json" "$tmp/"
    if ! npm ci --prefix "$tmp" --cache "$tmp/.npm" --ignore-scripts --no-audit --no-fund --loglevel=error >&2; then
      echo "$(basename "$0"): npm ci failed; trying once more in 5s" >&2
      sleep 5
      npm ci --prefix "$tmp" --cache "$tmp/.npm" --ignore-scripts --no-audit --no-fund --loglevel=error >&2 || true
    fi
    if ! node -e 'require(process.argv[1])' "$tmp/node_modules/playwright-core" 2>/dev/null; then
      rm -rf "$tmp"
      echo "$(basename "$0"): playwright-core did not install from npm; see above" >&2
      exit 1
    fi
    rm -rf "$cache" "$tmp/.npm"
    mv "$tmp" "$cache"
  fi
  ASK_CONFIRM_PLAYWRIGHT=$cache/node_modules
  export ASK_CONFIRM_PLAYWRIGHT
}

# need_wine PREFIX exports ASK_CONFIRM_WINE, Debian's wine64, installed with
# apt-get when missing and the script runs as root, and makes PREFIX a Wine
# prefix that Go programs run in: created on first use (about ten seconds),
# with the bcryptprimitives.dll that Go's runtime needs and Wine 8 lacks,
# and Wine's own fonts (fonts-wine), which its dialogs are set in.
# Where it cannot, it says what is missing and exits.
need_wine() {
  local prefix=$1 wine system32 font
  wine=$(command -v wine64 || true)
  [ -n "$wine" ] || { [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64; }
  if [ -z "$wine" ]; then
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "$(basename "$0"): wine64 is missing; install it (Debian/Ubuntu: sudo apt-get install --no-install-recommends wine64) and run again" >&2
      exit 1
    fi
    echo "$(basename "$0"): installing wine64 with apt-get"
    if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine64 >/dev/null 2>&1 ||
           { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine64 >/dev/null; }; }; then
      echo "$(basename "$0"): apt-get could not install wine64; install it by hand and run again" >&2
      exit 1
    fi
    wine=/usr/lib/wine/wine64
  fi
  if [ ! -f "$prefix/system.reg" ]; then
    echo "$(basename "$0"): creating the Wine prefix $prefix"
    mkdir -p "$prefix"
    # No display: wineboot must not open a window on a test's X server.
    env -u DISPLAY -u WAYLAND_DISPLAY WINEPREFIX="$prefix" WINEDEBUG=-all "$wine" wineboot --init >/dev/null 2>&1 || true
  fi
  system32="$prefix/drive_c/windows/system32"
  if [ ! -d "$system32" ]; then
    echo "$(basename "$0"): Wine did not create $system32" >&2
    exit 1
  fi
  # Wine's own fonts: its dialogs are set in its Tahoma. Without it Wine
  # sets them in Liberation Sans (fontconfig's), and measures that
  # narrower than it draws it: the widest rows of a message box lost
  # their last letters at the right (7 of 60 A's). Debian ships them in
  # fonts-wine, which only libwine recommends, and its Wine 8 never reads
  # them there (it looks in /usr/share/wine/../fonts, a path it cannot
  # open), so they are linked into the prefix's C:\windows\Fonts, which
  # it reads.
  need_packages --no-install-recommends /usr/share/wine/fonts/tahoma.ttf:fonts-wine
  mkdir -p "$prefix/drive_c/windows/Fonts"
  for font in /usr/share/wine/fonts/*; do
    [ -e "$prefix/drive_c/windows/Fonts/${font##*/}" ] || ln -sf "$font" "$prefix/drive_c/windows/Fonts/"
  done
  go run scripts/bcryptprimitives.go "$system32/bcryptprimitives.dll"
  ASK_CONFIRM_WINE=$wine
  export ASK_CONFIRM_WINE
}

# need_ntfy exports ASK_CONFIRM_NTFY, the ntfy server (v2.13) that the
# phone's tests and benchmark run. No package registry here serves it: it
# is taken from PATH, or from the shared test tools beside the repository
# (../shared/tools/ntfy, whose README says how it was built). Without one
# it says how to get it and exits.
need_ntfy() {
  if command -v ntfy >/dev/null 2>&1; then
    ASK_CONFIRM_NTFY=$(command -v ntfy)
  elif [ -x ../shared/tools/ntfy ]; then
    ASK_CONFIRM_NTFY=$(cd ../shared/tools && pwd)/ntfy
  else
    echo "$(basename "$0"): the ntfy server is missing; build ntfy v2.13 (github.com/binwiederhier/ntfy) and put it on PATH, or in ../shared/tools/ntfy, and run again" >&2
    exit 1
  fi
  export ASK_CONFIRM_NTFY
}

# start_xvfb starts a private X server on a free display number, exports
# DISPLAY, and stops the server when the calling script exits. What the
# server says is kept in XVFB_LOG, until then, for xvfb_log_tail.
start_xvfb() {
  local n
  for n in $(seq 91 140); do
    [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break
  done
  XVFB_LOG=$(mktemp)
  # -noreset: without it the server resets each time its last client
  # leaves, and a dialog program that connects during the reset (the
  # next dialog of a test, the text field after a list's Other…) cannot
  # open the display, exits with Cancel's code, and reads as a person's
  # Cancel. A desktop's X server always has clients, and never resets so.
  Xvfb ":$n" -screen 0 1920x1200x24 -nolisten tcp -noreset >"$XVFB_LOG" 2>&1 &
  XVFB_PID=$!
  at_exit "kill $XVFB_PID 2>/dev/null || true; rm -f '$XVFB_LOG'"
  local i
  for i in $(seq 1 400); do
    [ -S "/tmp/.X11-unix/X$n" ] && break
    sleep 0.05
  done
  if [ ! -S "/tmp/.X11-unix/X$n" ]; then
    echo "$(basename "$0"): Xvfb did not start on :$n" >&2
    exit 1
  fi
  export DISPLAY=":$n"
}

# xvfb_log_tail prints the last lines the X server of start_xvfb wrote,
# after a failed test: a refused client or a crash shows there.
xvfb_log_tail() {
  echo "==== the last lines Xvfb ($DISPLAY) wrote ===="
  tail -n 40 "$XVFB_LOG"
}

# start_sway starts a private, headless sway (a wlroots Wayland compositor
# that draws into memory: no GPU, no input devices, no Xwayland) with one
# 1024x768 output, exports where its clients find it, and stops it when the
# calling script exits:
#   ASK_CONFIRM_WAYLAND_RUNTIME_DIR  its XDG_RUNTIME_DIR, private (0700)
#   ASK_CONFIRM_WAYLAND_DISPLAY      its socket's name there, for WAYLAND_DISPLAY
#   ASK_CONFIRM_SWAYSOCK             its IPC socket, for swaymsg's SWAYSOCK
# Not WAYLAND_DISPLAY itself: every other test would then see a Wayland
# session beside the X server. sway refuses to run as root, so under root it
# runs as nobody (65534, which Debian always has), in a runtime directory
# that user owns; root still connects to its sockets. Otherwise it runs as
# the calling user.
start_sway() {
  local dir as=() i
  if [ "$(id -u)" -eq 0 ]; then
    # Under /tmp, whatever TMPDIR says: nobody must be able to reach it.
    dir=$(mktemp -d /tmp/ask-confirm-sway.XXXXXX)
    chown 65534:65534 "$dir"
    as=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
  else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/ask-confirm-sway.XXXXXX")
  fi
  chmod 0700 "$dir"
  printf '%s\n' 'xwayland disable' 'output HEADLESS-1 resolution 1024x768' >"$dir/config"
  # A clean environment: no DISPLAY, so wlroots cannot pick the X11 backend.
  (cd / && exec env -i PATH="$PATH" HOME="$dir" XDG_RUNTIME_DIR="$dir" \
    WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman \
    "${as[@]}" sway -c "$dir/config") >"$dir.log" 2>&1 &
  SWAY_PID=$!
  at_exit 'kill "$SWAY_PID" 2>/dev/null || true; wait "$SWAY_PID" 2>/dev/null || true; rm -rf "'"$dir"'" "'"$dir"'.log"'
  # sway names its sockets itself (wayland-1, sway-ipc.UID.PID.sock); it is
  # ready once its IPC answers with the output configured.
  local wl="" ipc=""
  for i in $(seq 1 100); do
    if ! kill -0 "$SWAY_PID" 2>/dev/null; then
      echo "$(basename "$0"): sway exited at start; its log:" >&2
      tail -n 20 "$dir.log" >&2
      exit 1
    fi
    wl=$(find "$dir" -maxdepth 1 -type s -name 'wayland-*' -printf '%f\n' | head -n 1)
    ipc=$(find "$dir" -maxdepth 1 -type s -name 'sway-ipc.*.sock' | head -n 1)
    if [ -n "$wl" ] && [ -n "$ipc" ] && SWAYSOCK=$ipc swaymsg -t get_outputs 2>/dev/null | grep -q '"HEADLESS-1"'; then
      break
    fi
    wl="" ipc=""
    sleep 0.1
  done
  if [ -z "$wl" ]; then
    echo "$(basename "$0"): sway did not come up within 10 s in $dir; its log:" >&2
    tail -n 20 "$dir.log" >&2
    exit 1
  fi
  export ASK_CONFIRM_WAYLAND_RUNTIME_DIR="$dir" ASK_CONFIRM_WAYLAND_DISPLAY="$wl" ASK_CONFIRM_SWAYSOCK="$ipc"
}

# Phases: phase NAME CMD... runs CMD in the foreground, and background NAME
# CMD... starts it in the background with its output kept aside (printed,
# under a header, when await NAME collects it). Each records how long it
# took and whether it passed, for phase_report, which prints them as a
# table. Both return CMD's exit status (await does); neither stops the
# script by itself.
PHASES=()
PHASE_DIR=""
phase() {
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  PHASES+=("$name|$((SECONDS - start))|$rc")
  return $rc
}

background() {
  local name=$1
  shift
  if [ -z "$PHASE_DIR" ]; then
    # A job still running when the script ends (await did not collect it)
    # is stopped, with everything it started, before its files go.
    at_exit 'for pid in "${BACKGROUND[@]}"; do [ -n "$pid" ] && kill_tree "$pid"; done'
    PHASE_DIR=$(mktemp -d)
    at_exit 'rm -rf "$PHASE_DIR"'
  fi
  (
    # Its own phases, for await to add to the table under it.
    PHASES=()
    start=$SECONDS rc=0
    "$@" >"$PHASE_DIR/$name.log" 2>&1 </dev/null || rc=$?
    if [ ${#PHASES[@]} -gt 0 ]; then printf '%s\n' "${PHASES[@]}" >"$PHASE_DIR/$name.phases"; fi
    echo "$((SECONDS - start)) $rc" >"$PHASE_DIR/$name.done"
  ) &
  echo "$!" >"$PHASE_DIR/$name.pid"
  BACKGROUND[$!]=$!
}
declare -a BACKGROUND=()

# kill_tree PID stops process PID and everything it started.
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}

await() {
  local name=$1 secs rc p pid
  pid=$(cat "$PHASE_DIR/$name.pid")
  wait "$pid" || true
  unset "BACKGROUND[$pid]"
  echo "==== $name (ran in the background) ===="
  cat "$PHASE_DIR/$name.log"
  read -r secs rc <"$PHASE_DIR/$name.done" || { secs=0 rc=1; }
  echo "==== $name: $([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc)") in ${secs}s ===="
  PHASES+=("$name (background)|$secs|$rc")
  if [ -f "$PHASE_DIR/$name.phases" ]; then
    while IFS= read -r p; do PHASES+=("  $p"); done <"$PHASE_DIR/$name.phases"
  fi
  return "$rc"
}

# go_test_phases LOG adds the time of each package that go test reported in
# LOG to the table, under the phase that ran it.
go_test_phases() {
  local verdict pkg took
  while read -r verdict pkg took _; do
    case "$verdict" in
      ok) PHASES+=("  ${pkg#github.com/ask-confirm/ask-confirm/}|${took%s}|0") ;;
      FAIL) [ -n "$pkg" ] && PHASES+=("  ${pkg#github.com/ask-confirm/ask-confirm/}|${took%s}|1") ;;
    esac
  done < <(grep -E '^(ok|FAIL)[[:space:]]+github\.com/' "$1" || true)
}

phase_report() {
  local p name secs rc
  echo
  echo "$(basename "$0"): where the time went (wall clock; background phases overlap the foreground)"
  for p in "${PHASES[@]}"; do
    IFS='|' read -r name secs rc <<<"$p"
    printf '  %-44s %7ss  %s\n' "$name" "$secs" "$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc)")"
  done
  printf '  %-44s %7ss\n' "total" "$SECONDS"
}

# keep_cores_busy starts one busy loop per core in a process of its own,
# each as eager for the CPU as the tests, and stops them when the calling
# script exits: a machine that other work keeps busy.
keep_cores_busy() {
  local n i
  n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
  BUSY_PIDS=()
  for i in $(seq 1 "$n"); do
    sh -c 'while :; do :; done' &
    BUSY_PIDS+=("$!")
  done
  at_exit 'kill "${BUSY_PIDS[@]}" 2>/dev/null || true'
  echo "$(basename "$0"): $n busy loops keep every core busy (pids ${BUSY_PIDS[*]})"
}

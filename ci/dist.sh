#!/usr/bin/env bash
# ci/dist.sh — release tarballs in dist/:
#   perflens-agent-<version>-<arch>.tar.gz  the static agent, a README for the
#                                            board, SHA256SUMS
#   perflens-viewer-<version>-<host arch>.tar.gz  the viewer and its app module
#                                            (perflens-ui.so), desktop file, icon,
#                                            README with docs/, man pages
# Run through `make dist` (which builds the agents and the viewer first).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^#define PL_VERSION "\(.*\)"/\1/p' common/version.h | head -n1)
build=${BUILD:-build}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

board_readme() {
	cat <<TXT
perflens-agent $version for $1
==============================

A static binary: nothing else is needed on the board but a Linux kernel with
perf events (CONFIG_PERF_EVENTS).

  scp perflens-agent board:/tmp/
  ssh board /tmp/perflens-agent --probe      # what this board allows
  ssh board /tmp/perflens-agent --listen     # port 9999; writes a token to ~/perflens-agent-9999.token

Then on the desktop:  perflens  (connect to board:9999 with the token)
or headless:          perflens record board:9999 --token TOKEN --command "/usr/bin/app"

Or skip all of the above if you reach the board with SSH: the viewer copies
this agent there itself (once, into ~/.cache/perflens/) and runs it with
--stdio through ssh, with no port and no token:
                      perflens record ssh://root@board --command "/usr/bin/app"

Sampling as a normal user needs kernel.perf_event_paranoid <= 2 (Debian
ships 3): run as root or sysctl kernel.perf_event_paranoid=1.
Other modes: --server VIEWER_IP (dial out), --output FILE (record headless).
See perflens-agent --help.
TXT
}

for bin in dist/perflens-agent-*; do
	case "$bin" in *.tar.gz|*.md) continue ;; esac
	arch=${bin#dist/perflens-agent-}
	d=$stage/perflens-agent-$version-$arch
	mkdir -p "$d"
	cp "$bin" "$d/perflens-agent"
	board_readme "$arch" >"$d/README"
	(cd "$d" && sha256sum perflens-agent README >SHA256SUMS)
	tar -C "$stage" -czf "dist/perflens-agent-$version-$arch.tar.gz" "perflens-agent-$version-$arch"
	echo "dist/perflens-agent-$version-$arch.tar.gz"
done

d=$stage/perflens-viewer-$version-$(uname -m)
mkdir -p "$d"
cp "$build/perflens" "$d/"
# the desktop app's module: perflens finds it next to itself
[ -f "$build/perflens-ui.so" ] && cp "$build/perflens-ui.so" "$d/"
# the static agents, which perflens record ssh://… copies to boards
mkdir -p "$d/agents"
for a in dist/perflens-agent-*; do
	case "$a" in *.tar.gz|*.md|*.map) continue ;; esac
	cp "$a" "$d/agents/"
done
for f in viewer/ui/data/*.desktop viewer/ui/data/*.svg viewer/ui/data/*.png; do
	[ -f "$f" ] && cp "$f" "$d/"
done
# README.md links into docs/ and DESIGN.md: they travel with it, so that
# every link in the tarball opens; the man pages and completions too
cp README.md LICENSE DESIGN.md "$d/"
mkdir -p "$d/docs"
cp -r docs/. "$d/docs/"
mkdir -p "$d/man"
cp -r "$build/man/man1" "$build/man/bash" "$build/man/zsh" "$d/man/"
missing=$(cd "$d" && grep -o '](\(docs\|DESIGN\)[^)#]*' README.md | sed 's/^](//' |
	while read -r f; do [ -e "$f" ] || echo "$f"; done)
if [ -n "$missing" ]; then
	echo "ci/dist.sh: README.md links to files the tarball lacks: $missing" >&2
	exit 1
fi
(cd "$d" && find . -type f ! -name SHA256SUMS -printf '%P\n' | sort | xargs sha256sum >SHA256SUMS)
tar -C "$stage" -czf "dist/perflens-viewer-$version-$(uname -m).tar.gz" "$(basename "$d")"
echo "dist/perflens-viewer-$version-$(uname -m).tar.gz"

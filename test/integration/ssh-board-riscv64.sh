#!/usr/bin/env bash
# ssh-board-riscv64.sh — ssh-board.sh's cases against the riscv64 board:
# its kernel built from Debian's source (test/boards/kernel.sh, the one
# boards.sh boots), busybox and dropbear built from Debian's source
# packages (test/boards/userland.sh: bookworm has no riscv64 port), the
# riscv64 agent deployed over ssh://.  Cases ssh_riscv64_*.
PL_SSH_BOARD=riscv64 exec bash "$(dirname "$0")/ssh-board.sh" "$@"

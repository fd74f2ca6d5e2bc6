#!/usr/bin/env bash
# docs/layoutctl.md's two pictures, drawn by layoutctl from a running daemon:
#   scripts/readme-pictures.sh [OUTPUT_DIR]    (default docs/img)
# LAYOUTCTL names the layoutctl to use (default: layoutctl on PATH); the daemon is found as
# layoutctl finds it ($LAYOUTD_SOCKET, ...). The views it creates are deleted again.
set -euo pipefail
out=${1:-docs/img}
ctl=${LAYOUTCTL:-layoutctl}
mkdir -p "$out"
trap '"$ctl" delete-view readme-photos -q 2>/dev/null || true; "$ctl" delete-view readme-stack -q 2>/dev/null || true' EXIT

# A flow grid with a header pinned to the top, one selected item, scrolled to 60.
"$ctl" create readme-photos --strategy flow --width 390 --height 300 --items 14 \
  --param itemSize=110x90 --param headerReferenceSize=0x30 --param sectionHeadersPinToVisibleBounds=true \
  --param sectionInset=10,10,10,10 -q
"$ctl" select readme-photos i4 -q
"$ctl" scroll readme-photos --y 60 -q
"$ctl" render readme-photos --rect 0,0,390,538 --png "$out/flow-grid.png" -q

# A collapsible grid whose selected run i1-i3 stacks onto one cell when collapsed.
"$ctl" create readme-stack --strategy collapsible --width 320 --height 330 --items 11 --param itemSize=90x90 -q
"$ctl" select readme-stack i1 i2 i3 i6 -q
"$ctl" render readme-stack --png "$out/stack-transition.png" --transition --configure collapsed=true -q

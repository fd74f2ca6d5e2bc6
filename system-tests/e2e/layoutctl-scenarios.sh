#!/usr/bin/env bash
# Each strategy's main scenario driven with layoutctl only, frames checked with jq. Needs a
# running layoutd ($LAYOUTD_SOCKET) and $LAYOUTCTL (default: layoutctl on PATH).
set -euo pipefail
ctl() { "${LAYOUTCTL:-layoutctl}" "$@"; }
# frame VIEW ID -> "x y width height"
frame() { ctl item "$1" "$2" --json | jq -r '.attributes.frame | "\(.x) \(.y) \(.width) \(.height)"'; }
check() {  # check NAME ACTUAL EXPECTED
  if [[ "$2" != "$3" ]]; then echo "FAIL $1: expected '$3', got '$2'"; exit 1; fi
  echo "ok   $1"
}

# The stacking grid: consecutive selected items collapse onto the first of their run.
ctl create stack --strategy collapsible --width 320 --height 480 \
  --param itemSize=100x100 --param itemSpacing=10 --param rowSpacing=10 --items 9 -q
ctl select stack i1 i2 i3 -q
ctl configure stack collapsed=true --animated --json | jq -e '.transition.segments | length > 0' > /dev/null
check "stack: i2 lies on i1" "$(frame stack i2)" "$(frame stack i1)"
check "stack: i3 lies on i1" "$(frame stack i3)" "$(frame stack i1)"
check "stack: the last of the run is on top" \
  "$(ctl query stack --rect 0,0,320,480 --json | jq -r '[.elements[] | select(.id == "i1" or .id == "i3")] | sort_by(.zIndex) | last.id')" "i3"
check "stack: i4 takes the next place after the stack" "$(frame stack i4)" "220 0 100 100"

# The featured-cell scroll: the top cell is featured; scrolling grows the next one.
ctl create feature --strategy ultravisual --width 320 --height 480 \
  --param standardHeight=100 --param featuredHeight=280 --items 8 -q
check "feature: u0 featured at rest" "$(frame feature i0 | cut -d' ' -f4)" "280"
check "feature: i1 standard at rest" "$(frame feature i1 | cut -d' ' -f4)" "100"
ctl scroll feature --y 90 -q
grown=$(frame feature i1 | cut -d' ' -f4)
jq -n -e --argjson h "$grown" '$h > 100 and $h < 280' > /dev/null && echo "ok   feature: i1 grows while scrolling ($grown)"
check "feature: snapping rests on a featured item" \
  "$(ctl scroll-end feature --y 130 --velocity 0,0 --json | jq -r '.targetContentOffset.y')" "180"

# The display switch: a two-column grid becomes a list, anchored and animated.
ctl create shelf --strategy display --width 320 --height 480 --param mode=grid --param columns=2 --items 6 -q
check "shelf: grid puts i1 beside i0" "$(frame shelf i1 | cut -d' ' -f2)" "$(frame shelf i0 | cut -d' ' -f2)"
segments=$(ctl configure shelf mode=list --animated --json | jq '.transition.segments | length')
jq -n -e --argjson s "$segments" '$s >= 6' > /dev/null && echo "ok   shelf: switching animates $segments elements"
check "shelf: list puts i1 under i0" "$(frame shelf i1 | cut -d' ' -f1)" "$(frame shelf i0 | cut -d' ' -f1)"
check "shelf: list rows are full width" "$(ctl item shelf i3 --json | jq '.attributes.frame.width')" "320"

# The expanding list: a selected item takes its selectedSize and pushes the rest down.
ctl create faq --width 320 --height 240 --param itemSize=320x44 --param minimumLineSpacing=1 -q
printf '%s\n' '{"id":"q0","selectedSize":{"width":320,"height":120}}' '{"id":"q1","selectedSize":{"width":320,"height":160}}' \
  '{"id":"q2"}' | ctl load faq - -q
before=$(frame faq q2 | cut -d' ' -f2)
ctl select faq q1 --animated -q
check "faq: q1 expands" "$(frame faq q1 | cut -d' ' -f4)" "160"
check "faq: q2 moves down by the growth" "$(frame faq q2 | cut -d' ' -f2)" "$((before + 116))"

# Fixed-spacing tags: exactly 8 points between neighbours, lines packed from the leading edge.
ctl create tags --width 240 --height 200 --param spacingMode=fixed --param minimumInteritemSpacing=8 \
  --param minimumLineSpacing=8 --param sectionInset=8,8,8,8 -q
ctl insert tags swift:52x28 linux:56x28 layout:64x28 daemon:70x28 json:48x28 -q
check "tags: swift starts at the inset" "$(frame tags swift | cut -d' ' -f1-2)" "8 8"
check "tags: 8 points between swift and linux" \
  "$(jq -n --argjson a "$(ctl item tags swift --json)" --argjson b "$(ctl item tags linux --json)" \
     '$b.attributes.frame.x - ($a.attributes.frame.x + $a.attributes.frame.width)')" "8"
check "tags: daemon wraps to the second line" "$(frame tags daemon | cut -d' ' -f1-2)" "8 44"

ctl views --json | jq -e '.views | length == 5' > /dev/null
echo "all scenarios passed"

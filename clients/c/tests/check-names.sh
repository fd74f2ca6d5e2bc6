#!/bin/sh
# No library source spells a protocol name (method, event, error) by hand: they use the macros
# of include/layoutd/protocol.h, which scripts/generate-protocol.py writes from
# protocol/interface.json. The generated src/protocol.c is the one file that holds the names.
#   tests/check-names.sh include/layoutd/protocol.h src
set -eu
header=$1
src=$2
names=$(sed -n 's/^#define LAYOUTD_\(METHOD\|EVENT\|ERROR\)_[A-Z_]* *\("[^"]*"\)$/\2/p' "$header")
[ -n "$names" ] || { echo "check-names: no names in $header"; exit 1; }
status=0
for file in "$src"/*.c "$src"/*.h; do
    [ "$(basename "$file")" = protocol.c ] && continue
    for name in $names; do
        if grep -nF "$name" "$file" >/dev/null; then
            grep -nF "$name" "$file" | sed "s|^|check-names: $file:|; s|\$|   (use protocol.h's macro for $name)|"
            status=1
        fi
    done
done
[ "$status" = 0 ] && echo "check-names: $(echo "$names" | wc -l) protocol names, none spelled by hand in $src"
exit $status

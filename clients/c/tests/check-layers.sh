#!/bin/sh
# Checks the library's layering (src/internal.h, the LAYERS line) on its compiled objects: a
# function or object a file uses and the library defines must be defined in that file's layer or
# an earlier one, never a later one; and every src/*.c must have its place in the list.
#   tests/check-layers.sh src/internal.h OBJDIR      (OBJDIR holds json.o, protocol.o, ...)
set -eu
header=$1
objects=$2
src=$(dirname "$header")
layers=$(sed -n 's/^ \* LAYERS: //p' "$header")
[ -n "$layers" ] || { echo "check-layers: no ' * LAYERS:' line in $header"; exit 1; }
status=0
for file in "$src"/*.c; do
    name=$(basename "$file" .c)
    case " $layers " in
    *" $name "*) ;;
    *) echo "check-layers: $file is not in the LAYERS line of $header: give it its place"; status=1 ;;
    esac
done
# One line per symbol: "<layer index> <file> D <symbol>" for each global definition and
# "<layer index> <file> U <symbol>" for each undefined reference.
index=0
table=$(for name in $layers; do
    index=$((index + 1))
    nm "$objects/$name.o" | awk -v i="$index" -v f="$name.c" '
        $1 == "U" { print i, f, "U", $2; next }
        NF == 3 && $2 ~ /^[TDBRGSVW]$/ { print i, f, "D", $3 }'
done)
echo "$table" | awk '
    $3 == "D" { layer[$4] = $1; home[$4] = $2 }
    $3 == "U" { uses[++n] = $0 }
    END {
        bad = 0
        for (k = 1; k <= n; k++) {
            split(uses[k], u, " ")
            if ((u[4] in layer) && layer[u[4]] > u[1]) {
                printf "check-layers: %s calls %s, defined in %s, a later layer\n", u[2], u[4], home[u[4]]
                bad = 1
            }
        }
        exit bad
    }' || status=1
[ "$status" = 0 ] && echo "check-layers: $(echo $layers | wc -w) layers ($layers), no call to a later layer"
exit $status

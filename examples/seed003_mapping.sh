#!/bin/sh
# seed003_mapping.sh [TORUSEMU] - the mapping study of McCraw et al., "Beyond
# the CPU: Hardware Performance Counter Monitoring on Blue Gene/Q" (seed 003
# section 4.4), by replay: the first all-to-all of a 512^3 3-D FFT on a
# 16 x 512 processor grid, 8,192 ranks on the 512-node midplane, 16 per node,
# under the default ABCDET mapping and under Table 5(b) (each row of 16 ranks
# on one node: rank r on node r mod 512, T = r / 512, i.e. order TABCDE).
# Prints per-node PEVT_NW_USER_PP_SENT (32-byte chunks sent on the user
# point-to-point VCs over the ten torus links, pass-through included):
#  - counted by the replay without --timing, every packet on its
#    deterministic route (flat), for both mappings;
#  - from the timed replay (--timing) of the default mapping, where the
#    all-to-all's packets are routed dynamically as PAMI's many-to-many
#    protocol routed them on BG/Q, and again with m2m-routing=deterministic
#    (the machine's PAMI_M2M_ROUTING=DETERMINISTIC);
# beside the paper's approx. 270,000 per node, varying node to node, and 0
# for Table 5(b); then the predicted time of that all-to-all under each
# mapping (on-node messages take BG/Q's shared-memory path, doc/
# virtual-time.md, "MPI software costs") and the speed-up of Table 5(b),
# beside the paper's "up to a factor of approx. 10" (Fig. 3).
set -eu
T=${1:-torusemu}
D=$(mktemp -d "${TMPDIR:-/tmp}/seed003.XXXXXX")
trap 'rm -rf "$D"' EXIT
FFT="--ranks-per-node 16 --quiet --pattern fft --grid 16x512 --size 512 --phase 1"
# per_node STORE LABEL: min, mean and max over the nodes of the chunks sent
# on VCs 0-2 of the links A- .. E+ (dump: a "node ..." line, then per link
# "L  vc0 .. vc6 | ...")
per_node() {
    "$T" dump "$1" --all | awk -v label="$2" '
        /^node / { if (n++) { tot[n - 1] = sum }; sum = 0; next }
        /^  [A-E][+-] / { sum += $2 + $3 + $4 }
        END {
            tot[n] = sum; min = -1; max = 0; all = 0
            for (i = 1; i <= n; i++) {
                all += tot[i]
                if (min < 0 || tot[i] < min) { min = tot[i] }
                if (tot[i] > max) { max = tot[i] }
            }
            mean = all / n
            printf "%-44s min %d, mean %.0f, max %d", label, min, mean, max
            if (max > min) { printf " (%+.1f %% .. %+.1f %% of the mean)", 100 * (min / mean - 1), 100 * (max / mean - 1) }
            printf "\n"
        }'
}
echo "PEVT_NW_USER_PP_SENT per node over the 512 nodes (32-byte chunks):"
for map in ABCDET TABCDE; do
    # shellcheck disable=SC2086 # FFT holds several options
    "$T" replay --machine midplane --map "$map" $FFT --keep "$D/$map.store"
    per_node "$D/$map.store" "$map  counted:"
done
# timed: the default mapping with the machine's dynamic all-to-all routing,
# then deterministic; Table 5(b) keeps every message on its node
for how in dynamic deterministic; do
    # shellcheck disable=SC2086
    "$T" replay --machine "midplane,m2m-routing=$how" --map ABCDET $FFT --timing --format csv \
        --keep "$D/$how.store" >/dev/null 2>"$D/ABCDET.$how.time"
    per_node "$D/$how.store" "ABCDET  --timing, $how M2M routes:"
done
# The paper's figure, and where its variation comes from (doc/model.md,
# "All-to-all on BG/Q")
cat <<'EOF2'
paper (McCraw 2013, 4.4): approx. 270,000 per node, varying node to node; 0 under Table 5(b)
variation: BG/Q's MPI_Alltoall runs PAMI's many-to-many protocol, which sends each 16 KiB
  block as memory-FIFO packets routed dynamically (VC 0, zone 1 on 512 nodes); under --timing
  each packet takes, hop by hop, the minimal direction with the most free buffer space, so
  some nodes pass more packets than others. Every path is minimal: the mean equals the
  counted one. Counting without --timing, or m2m-routing=deterministic, is flat.
EOF2
cp "$D/ABCDET.dynamic.time" "$D/ABCDET.time"
# shellcheck disable=SC2086
"$T" replay --machine midplane --map TABCDE $FFT --timing --format csv >/dev/null 2>"$D/TABCDE.time"
for map in ABCDET TABCDE; do
    sed -n "s/^predicted runtime \([0-9.]*\) us.*/$map  first all-to-all: \1 us/p" "$D/$map.time"
done
sed -n 's/^predicted runtime \([0-9.]*\) us.*/\1/p' "$D/ABCDET.time" "$D/TABCDE.time" | awk '
    NR == 1 { a = $1 } NR == 2 { b = $1 }
    END { printf "Table 5(b) speed-up of the first all-to-all: %.1fx (seed 003 Fig. 3: up to approx. 10x)\n", a / b }'

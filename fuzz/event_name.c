/*
 * event_name.c - fuzz the event-name and qualifier parser of the six
 * components (torus_table_lookup on the generated tables).  The first byte
 * picks the table, the rest is the name.  Invariants: an accepted name's
 * code decodes, its canonical name looks up to the same code, and its
 * description is non-empty.
 */
#include "fuzz.h"
#include "torus_table.h"

#include "bgp_torus_table.h"
#include "bgq_cnkunit_table.h"
#include "bgq_iounit_table.h"
#include "bgq_l2unit_table.h"
#include "bgq_nwunit_table.h"
#include "gemini_tile_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const torus_table *tables[] = {&gemini_tile_table, &bgp_torus_table,
                                          &bgq_nwunit_table,  &bgq_l2unit_table,
                                          &bgq_iounit_table,  &bgq_cnkunit_table};
    unsigned code, again;
    torus_pick pick;
    char canon[256], text[4096];
    if (size < 1) {
        return 0;
    }
    const torus_table *t = tables[data[0] % 6];
    char *name = fuzz_string(data + 1, size - 1, 256);
    if (torus_table_lookup(t, name, &code) == TORUS_OK) {
        FUZZ_CHECK(torus_table_decode(t, code, &pick) == TORUS_OK && pick.code == code);
        FUZZ_CHECK(torus_table_name(t, code, canon, sizeof canon) == TORUS_OK);
        FUZZ_CHECK(torus_table_lookup(t, canon, &again) == TORUS_OK && again == code);
        FUZZ_CHECK(torus_table_describe(t, code, text, sizeof text) == TORUS_OK &&
                   text[0] != '\0');
    }
    free(name);
    return 0;
}

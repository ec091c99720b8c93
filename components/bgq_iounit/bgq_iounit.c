/*
 * bgq_iounit.c - PAPI component for the Blue Gene/Q I/O unit of the calling
 * process's node: the message-unit (MU), PCIe and device-bus counters of the
 * UPC_C I/O SRAM (BG/Q driver, doc/references.md; McCraw 2013 section 3.3), read
 * from the emulated machine.
 *
 * Every event is one node-wide counter, its SRAM index; the emulator fills
 * the MU indices 0..8 and leaves the others at 0 (each event's description
 * says why).  The real counters were node-shared with no combination rule,
 * so any events can be counted together.
 *
 * Overflow is "slow" as on the L2 (McCraw 2013 section 3.3; BG/Q driver,
 * doc/references.md): detected up to 800 cycles (500 ns at 1.6 GHz) after the
 * crossing while the counters run on, with one threshold per SRAM counter
 * for the whole node.
 */
#include "bgq_iounit_table.h"
#include "torus_comp.h"
#include "torusemu.h"

static int io_resolve(const torus_component *c, const torus_place *pl, const torus_event_def *ev,
                      const torus_qvals *q, int64_t coef, torus_build *b)
{
    torus_hwref ref = {TORUS_UNIT_BGQ_MU, pl->node, (int)ev->arg[0], 0, 0};
    (void)c;
    (void)q;
    return torus_build_counter(b, &ref, coef);
}

#define IO_SLOW_OVERFLOW_CYCLES 800 /* of the A2 clock (McCraw 2013 section 3.1) */
#define IO_KEY 0x200                /* node-wide threshold keys: 0x200 + SRAM index */

/* The node-wide threshold of a base event is its SRAM counter's. */
static int64_t io_overflow_key(const torus_component *c, const torus_pick *p)
{
    (void)c;
    if (p->ev->klass == TORUS_CLASS_DERIVED) {
        return -1;
    }
    return IO_KEY + p->ev->arg[0];
}

static torus_component bgq_iounit = {
    .name = "bgq_iounit",
    .description = "Blue Gene/Q I/O unit: message unit, PCIe, DevBus (emulated machine)",
    .table = &bgq_iounit_table,
    .system = TEMU_SYSTEM_BGQ,
    .num_cntrs = TEMU_BGQ_MU_COUNTERS, /* UPC_C I/O SRAM entries */
    .resolve = io_resolve,
    .overflow_key = io_overflow_key,
    .overflow_delay_cycles = IO_SLOW_OVERFLOW_CYCLES,
};

TORUS_COMPONENT_VECTOR(bgq_iounit, bgq_iounit);

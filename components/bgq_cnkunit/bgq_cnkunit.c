/*
 * bgq_cnkunit.c - PAPI component for the Blue Gene/Q Compute Node Kernel
 * software counters (BG/Q driver, doc/references.md; McCraw 2013 section 3.5):
 * two node-wide counters, no per-process ones (id 387 is a reserved
 * placeholder), and 27 per hardware thread of the calling thread.
 *
 * Sources (each event's description names its own):
 *   node counters            the emulated machine's CNK node counters;
 *   per-thread, host analogue measured on this Linux host for the calling
 *                            thread: /proc/thread-self/io (system calls),
 *                            getrusage(RUSAGE_THREAD) (page faults,
 *                            involuntary context switches) - not
 *                            deterministic;
 *   per-thread, the rest     the emulated node's counter of the process's
 *                            hardware thread, which the model never raises.
 * As BGPM did, every event set keeps its own start values (the layer's
 * start snapshot), so reset changes only that set's view.  CNK had no
 * rules on which counters go together.
 *
 * Overflow (BGPM had none on this unit): the store counters through the
 * emulator's watches; the host-measured ones on the set timer, every
 * TORUS_HOST_POLL_NS (1 ms), so host_read must be async-signal-safe;
 * PEVT_CNKPROC_RSV has no counter and is refused (PAPI_EINVAL).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RUSAGE_THREAD */
#endif
#include "bgq_cnkunit_table.h"
#include "torus_comp.h"
#include "torusemu.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Host sources (ARGS of class hwt). */
enum cnk_source { CNK_SRC_SYSCALLS = 0, CNK_SRC_FAULTS = 1, CNK_SRC_PREEMPTIONS = 2 };

/* Reads of /proc/thread-self/io this thread made for the component: each
 * is a read-class call, counted by the kernel after the file's text was
 * made, so the next reading includes it and subtracts it again. */
static __thread uint64_t own_reads;

/* The number after "key" in text, 0 if absent.  By hand: host_read runs
 * in the set timer's signal handler, where sscanf is not safe. */
static uint64_t field(const char *text, const char *key)
{
    size_t klen = strlen(key);
    uint64_t v = 0;
    for (const char *p = text; *p != '\0'; p++) {
        if ((p == text || p[-1] == '\n') && strncmp(p, key, klen) == 0) {
            for (p += klen; *p == ' ' || *p == '\t'; p++) {
            }
            for (; *p >= '0' && *p <= '9'; p++) {
                v = v * 10 + (uint64_t)(*p - '0');
            }
            break;
        }
    }
    return v;
}

/* Read- and write-class system calls of the calling thread (syscr + syscw
 * of Linux task I/O accounting), without the component's own reads; 0 if
 * the file cannot be read.  Async-signal-safe (open, read, close). */
static uint64_t io_syscalls(void)
{
    char buf[512];
    uint64_t r, w;
    ssize_t n;
    int fd = open("/proc/thread-self/io", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    own_reads++;
    if (n <= 0) {
        return 0;
    }
    buf[n] = '\0';
    r = field(buf, "syscr:");
    w = field(buf, "syscw:");
    return r + w - (own_reads - 1);
}

static uint64_t cnk_host_read(const torus_component *c, int source)
{
    struct rusage ru;
    (void)c;
    if (source == CNK_SRC_SYSCALLS) {
        return io_syscalls();
    }
    if (getrusage(RUSAGE_THREAD, &ru) != 0) {
        return 0;
    }
    if (source == CNK_SRC_FAULTS) {
        return (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
    }
    return source == CNK_SRC_PREEMPTIONS ? (uint64_t)ru.ru_nivcsw : 0;
}

static int cnk_resolve(const torus_component *c, const torus_place *pl, const torus_event_def *ev,
                       const torus_qvals *q, int64_t coef, torus_build *b)
{
    torus_hwref ref = {TORUS_UNIT_BGQ_CNK_NODE, pl->node, (int)ev->arg[0], 0, 0};
    (void)c;
    (void)q;
    switch (ev->klass) {
    case BGQ_CNKUNIT_CLASS_NODE:
        return torus_build_counter(b, &ref, coef);
    case BGQ_CNKUNIT_CLASS_HWT:
        if (ev->arg[1] >= 0) {
            return torus_build_host(b, (int)ev->arg[1], coef);
        }
        ref.unit = TORUS_UNIT_BGQ_CNK_HWT;
        ref.a = pl->hwthread;
        ref.b = (int)ev->arg[0];
        return torus_build_counter(b, &ref, coef);
    default: /* the reserved process counter: nothing to read, reads 0 */
        return TORUS_OK;
    }
}

static torus_component bgq_cnkunit = {
    .name = "bgq_cnkunit",
    .description = "Blue Gene/Q CNK software counters (emulated node, host-measured thread counts)",
    .table = &bgq_cnkunit_table,
    .system = TEMU_SYSTEM_BGQ,
    .num_cntrs = TEMU_BGQ_CNK_NODE_COUNTERS + TEMU_BGQ_CNK_HWT_COUNTERS + 1, /* + reserved */
    .resolve = cnk_resolve,
    .host_read = cnk_host_read,
};

TORUS_COMPONENT_VECTOR(bgq_cnkunit, bgq_cnkunit);

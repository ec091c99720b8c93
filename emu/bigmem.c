/*
 * bigmem.c - large arrays on 2 MB pages (emu_internal.h, temu_mem_huge).
 *
 * The timing model's large arrays (trains, event nodes, channels,
 * queues, messages) are read at random: seed 003's all-to-all on Mira
 * holds about 4 GB of them, and with 4 KB pages nearly every access to a
 * train or a channel also misses the TLB (a page walk whose own entries
 * are rarely in cache).  2 MB pages cover 512 times as much per TLB entry.
 * This host's kernel gives them to anonymous memory only where asked
 * (/sys/kernel/mm/transparent_hugepage/enabled: "madvise"), hence the
 * request.  A request the kernel refuses changes nothing but speed.
 */
#include "bigmem.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_BYTES ((uintptr_t)2 << 20) /* x86-64's large page */

void temu_mem_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    /* only the whole 2 MB pages inside the array: madvise works on pages,
     * and the array's first and last bytes may share theirs with other
     * allocations; below 4 MB there may be none inside, and the gain is
     * small anyway */
    if (p == NULL || bytes < 2 * HUGE_BYTES) {
        return;
    }
    uintptr_t lo = ((uintptr_t)p + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(HUGE_BYTES - 1);
    if (hi > lo) {
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)bytes;
#endif
}

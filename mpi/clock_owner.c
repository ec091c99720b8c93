/*
 * clock_owner.c - the rule that tells the MPI runtime's clock reads from
 * the program's (clock_owner.h).
 */
#include "clock_owner.h"

#include <string.h>

/*
 * Shared objects whose clock reads stay on host time, by the start of
 * their file name.  Open MPI's progress engine and libevent's timers, PMIx
 * and ORTE timeouts, hwloc/udev discovery and the network libraries pace
 * themselves by host time; papi-torus's own libraries (the layer traces in
 * host time, the model thread publishes every 50 ms) and PAPI too.  The C
 * library and the loader are listed for calls that go through their PLT.
 * `nm -D --undefined-only` on Open MPI 4.1's libraries finds clock reads
 * in libmpi, libopen-pal, libopen-rte, libevent, libudev and a dozen
 * mca_* components.
 */
static const char *const runtime_prefixes[] = {
    /* Open MPI and its plugins (mca_*, libmca_common_*), OpenSHMEM */
    "libmpi", "libopen-pal", "libopen-rte", "libopen-orted", "liboshmem", "libompitrace", "libmca_",
    "mca_", "ompi_",
    /* process management */
    "libpmix", "pmix_", "libprrte", "libpmi", "libslurm", "libmunge",
    /* Open MPI's helpers */
    "libevent", "libhwloc", "libudev", "libnl-", "libltdl", "libnuma",
    /* networks */
    "libucp", "libucs", "libuct", "libucm", "libfabric", "libpsm", "libibverbs", "librdmacm",
    "libcuda",
    /* counters: PAPI, libpfm, papi-torus */
    "libpapi", "libpfm", "libtorusemu",
    /* the C library and the dynamic loader */
    "libc.so", "libc-", "ld-linux", "ld-", "libpthread", "librt.", "libdl."};

int tmpi_clock_runtime_object(const char *path)
{
    const char *base = path != NULL ? strrchr(path, '/') : NULL;
    base = base != NULL ? base + 1 : path;
    if (base == NULL || *base == '\0') {
        return 0;
    }
    for (size_t i = 0; i < sizeof runtime_prefixes / sizeof runtime_prefixes[0]; i++) {
        if (strncmp(base, runtime_prefixes[i], strlen(runtime_prefixes[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The wall clocks, in the order of their index. */
static const clockid_t wall_clocks[TMPI_WALL_CLOCKS] = {CLOCK_REALTIME,
                                                        CLOCK_MONOTONIC,
                                                        CLOCK_MONOTONIC_RAW,
                                                        CLOCK_REALTIME_COARSE,
                                                        CLOCK_MONOTONIC_COARSE,
                                                        CLOCK_BOOTTIME,
                                                        CLOCK_TAI};

int tmpi_wall_clock_index(clockid_t id)
{
    for (int i = 0; i < TMPI_WALL_CLOCKS; i++) {
        if (wall_clocks[i] == id) {
            return i;
        }
    }
    return -1;
}

clockid_t tmpi_wall_clock_id(int index)
{
    return wall_clocks[index];
}

/*
 * error.c - status names and the single helper that records a failure.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <stdio.h>

const char *temu_status_name(temu_status status)
{
    switch (status) {
    case TEMU_OK:
        return "ok";
    case TEMU_EINVAL:
        return "invalid input";
    case TEMU_ERANGE:
        return "out of range";
    case TEMU_ENOMEM:
        return "out of memory";
    case TEMU_EIO:
        return "i/o error";
    case TEMU_EVERSION:
        return "incompatible store version";
    case TEMU_ECORRUPT:
        return "corrupt store";
    case TEMU_ENOSESSION:
        return "no session";
    }
    return "unknown status";
}

temu_status temu_fail(temu_error *err, temu_status status, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

/*
 * tgather_f.c - Fortran bindings of the gathering library (gfortran's
 * convention: lower case, one trailing underscore, character lengths passed
 * by value after the other arguments).
 *
 *   CALL TGATHER_START(COMM, IERR)
 *   CALL TGATHER_STOP(IERR)
 *   CALL TGATHER_REPORT(TABLE, CSV, IERR)   (blank name: not written)
 */
#include "tgather.h"

#include <stdlib.h>
#include <string.h>

void tgather_start_(MPI_Fint *comm, MPI_Fint *ierr);
void tgather_stop_(MPI_Fint *ierr);
void tgather_report_(const char *table, const char *csv, MPI_Fint *ierr, size_t ltable,
                     size_t lcsv);

/* A Fortran CHARACTER argument as a C string without its trailing blanks. */
static char *c_string(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ') {
        len--;
    }
    char *c = malloc(len + 1);
    if (c != NULL) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

void tgather_start_(MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = tgather_start(MPI_Comm_f2c(*comm));
}

void tgather_stop_(MPI_Fint *ierr)
{
    *ierr = tgather_stop();
}

void tgather_report_(const char *table, const char *csv, MPI_Fint *ierr, size_t ltable, size_t lcsv)
{
    char *t = c_string(table, ltable), *c = c_string(csv, lcsv);
    *ierr = t != NULL && c != NULL ? tgather_report(t, c) : -1;
    free(t);
    free(c);
}

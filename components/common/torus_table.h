/*
 * torus_table.h - event tables of the papi-torus components: names,
 * qualifiers, enumeration and derived-event formulas.  Pure C: no PAPI and
 * no emulator here, so the table code is the same whatever reads the counts.
 *
 * The tables themselves are data (components/<c>/<c>.events and
 * presets/<c>.presets), turned into a const torus_table by gen-events.awk.
 *
 * Event codes (what the component hands to PAPI):
 *   bits 31..20  event index in the table (up to 4096 events)
 *   bits 19..0   qualifier instance: mixed radix over the event's
 *                qualifiers in qualifier-id order, one digit per qualifier
 *                of (values + 1); digit 0 = qualifier not given.
 * So code (i << 20) is event i without qualifiers, and every code decodes
 * to exactly one canonical name.  Bit 30 (TORUS_LISTED) marks the codes
 * PAPI_NTV_ENUM_UMASKS hands out: they decode like the code without it, but
 * their event info carries no units, so papi_native_avail prints "Units:"
 * once per event rather than once per qualifier value.
 */
#ifndef TORUS_TABLE_H
#define TORUS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define TORUS_MAX_QUALS 8
#define TORUS_INST_BITS 20
#define TORUS_INST_MASK ((1u << TORUS_INST_BITS) - 1u)
#define TORUS_LISTED (1u << 30)
#define TORUS_INDEX_MASK 0x3ffu /* event index bits above TORUS_INST_BITS */
#define TORUS_CLASS_DERIVED (-1)

/* Status codes of the pure layer; torus_comp.c maps them to PAPI's. */
enum torus_status {
    TORUS_OK = 0,
    TORUS_ENOEVNT = -1, /* no such event (or enumeration finished)      */
    TORUS_EINVAL = -2,  /* event exists, qualifier malformed or refused  */
    TORUS_ECNFLCT = -3, /* events cannot be counted together             */
    TORUS_ENOMEM = -4,  /* an event set needs more counters than fit     */
    TORUS_ESYS = -5     /* backend failure (store missing, ...)          */
};

typedef struct torus_qual_def {
    const char *name;          /* "n", "link", "vc", "slice"                    */
    const char *descr;         /* what the qualifier selects                    */
    int positional;            /* 1: written ":V"; 0: written ":NAME=V"         */
    int hex;                   /* print values in hexadecimal                   */
    int64_t min, max;          /* value range (symbolic: 0..nvalues-1)          */
    const char *const *values; /* symbolic value names, or NULL                 */
    int nvalues;
    int64_t dflt; /* value listed in enumeration when the range is too large */
    const char *const *value_descr; /* per symbolic value: what it selects, or NULL */
    const char *const *bits;        /* hexadecimal mask: what bit i selects, or NULL */
    int nbits;
} torus_qual_def;

typedef struct torus_term {
    int event;   /* base event index */
    int64_t mul; /* coefficient      */
} torus_term;

typedef struct torus_event_def {
    const char *name;
    const char *units;
    const char *descr;
    int klass;      /* component class (generated enum), TORUS_CLASS_DERIVED */
    int64_t arg[4]; /* class arguments, meaning documented in the .events file */
    unsigned qmask; /* qualifiers the event accepts (bit = qualifier id)      */
    int first_term; /* derived: terms[first_term .. first_term + nterms)      */
    int nterms;
    int64_t div; /* derived: the sum of the terms is divided by this       */
    const char *short_descr; /* PAPI's short description (< 64 characters) */
} torus_event_def;

typedef struct torus_table {
    const char *component;
    const torus_event_def *events;
    int nevents;
    const torus_qual_def *quals;
    int nquals;
    const torus_term *terms;
    int nterms;
} torus_table;

/* Qualifier values of one event instance. */
typedef struct torus_qvals {
    unsigned set;               /* bit q: qualifier q given */
    int64_t v[TORUS_MAX_QUALS]; /* its value                */
} torus_qvals;

/* A decoded event code. */
typedef struct torus_pick {
    unsigned code;
    const torus_event_def *ev;
    int index;
    torus_qvals q;
} torus_pick;

static inline int torus_qset(const torus_qvals *q, int qual)
{
    return (q->set >> qual) & 1u;
}

/* Enumeration modifiers (PAPI's ENUM_FIRST / ENUM_EVENTS / NTV_ENUM_UMASKS). */
enum torus_enum { TORUS_ENUM_FIRST, TORUS_ENUM_EVENTS, TORUS_ENUM_UMASKS };

/* Check a table's internal consistency (the generator's checks again, plus
 * the instance-space limit).  0, or TORUS_EINVAL with a reason in why. */
int torus_table_check(const torus_table *t, char *why, size_t len);

/* Name (without "component:::") -> code.  TORUS_ENOEVNT when the base name
 * is unknown, TORUS_EINVAL when a qualifier is unknown, repeated, out of
 * range or malformed. */
int torus_table_lookup(const torus_table *t, const char *name, unsigned *code);
/* Build a code from an event index and qualifier values (checked). */
int torus_table_encode(const torus_table *t, int index, const torus_qvals *q, unsigned *code);
/* Code -> event and qualifier values; TORUS_ENOEVNT for a code that no
 * name produces. */
int torus_table_decode(const torus_table *t, unsigned code, torus_pick *out);
/* Canonical name of a code ("EV", "EV:3:4", "EV:link=X+"). */
int torus_table_name(const torus_table *t, unsigned code, char *buf, size_t len);
/* Long description; for a qualified code "<event text> masks:<qualifiers>"
 * (what papi_native_avail prints under the event). */
int torus_table_describe(const torus_table *t, unsigned code, char *buf, size_t len);
/* PAPI-style enumeration.  UMASKS walks the qualified forms of one event:
 * every combination of its positional qualifiers, then every value of each
 * named qualifier (only the default for a qualifier of more than 64 values). */
int torus_table_enum(const torus_table *t, unsigned *code, int modifier);
/* Number of events (base and derived) the table enumerates. */
static inline int torus_table_count(const torus_table *t)
{
    return t->nevents;
}

/* Write a qualifier value as it is spelt in names ("X+", "3", "0x70"). */
/* What value v of qualifier q selects, in words, into buf; returns the
 * length written. */
size_t torus_qual_describe(const torus_qual_def *q, int64_t v, char *buf, size_t len);
int torus_qual_format(const torus_qual_def *q, int64_t v, char *buf, size_t len);

#endif /* TORUS_TABLE_H */

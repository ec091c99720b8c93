# gen-events.awk - turn a component's event table (components/<c>/<c>.events)
# and its derived events (presets/<c>.presets) into C, checking them first.
#
#   awk -v comp=gemini_tile -v out=DIR -f gen-events.awk EVENTS PRESETS
#       writes DIR/<comp>_table.h and DIR/<comp>_table.c
#   awk -v comp=gemini_tile -v check=1 -f gen-events.awk EVENTS PRESETS
#       only checks; prints "<comp>: N events, M derived, Q qualifiers"
#
# POSIX awk only (Debian's mawk runs it).  Any error prints
# "FILE:LINE: reason" and exits 1, so a bad table fails the build.
#
# Input lines are tab-separated; '#' starts a comment line.
#   qualifier NAME  pos|named  RANGE  DEFAULT  DESCRIPTION
#       RANGE: LO..HI (decimal, or 0x.. for a hexadecimal qualifier) or
#       A|B|C (symbolic values, numbered from 0).  DEFAULT is the value
#       listed by PAPI_NTV_ENUM_UMASKS for a qualifier with more than 64
#       values ("-" otherwise).  pos: written ":V", named: ":NAME=V".
#       DESCRIPTION says what one value selects, "{}" standing for the value
#       ("tile row {}"); it is what papi_native_avail -e shows per value.
#   value QUALIFIER  VALUE  DESCRIPTION
#       what one value of a symbolic qualifier means; every value needs one
#   bit QUALIFIER  MASK  DESCRIPTION
#       what one bit of a hexadecimal mask qualifier selects; every bit of
#       its range needs one (the value is described as the sum of its bits)
#   class NAME [DESCRIPTION]
#   event NAME  CLASS  ARGS  UNITS  QUALS  SHORT  DESCRIPTION
#       ARGS: up to 4 comma-separated integers the component interprets
#       (documented at the top of each .events file); QUALS: comma list of
#       qualifier names or "-".  SHORT: PAPI's short description, 8 to 63
#       characters, written for it (not the long one cut short).
#   derived NAME  UNITS  QUALS  FORMULA  SHORT  DESCRIPTION  (presets/ files)
# No description may contain ':' - papi_avail -e takes the text after the
# first ':' of a qualified event's description for the qualifier's.
#       FORMULA: TERM [+|- TERM]... [/ DIVISOR], TERM = [INT*]EVENT, where
#       EVENT is a base event of the same component.  The derived event's
#       qualifiers are handed to every base event when it is resolved.

function fail(msg) {
    printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
    failed = 1
    exit 1
}

function cstr(s) {
    gsub(/\\/, "\\\\", s)
    gsub(/"/, "\\\"", s)
    return "\"" s "\""
}

function is_int(s) {
    return s ~ /^-?[0-9]+$/ || s ~ /^0x[0-9a-fA-F]+$/
}

function to_int(s,    v, i, c, neg) {
    if (s ~ /^0x/) {
        v = 0
        s = tolower(substr(s, 3))
        for (i = 1; i <= length(s); i++) {
            c = index("0123456789abcdef", substr(s, i, 1)) - 1
            v = v * 16 + c
        }
        return v
    }
    neg = 0
    if (substr(s, 1, 1) == "-") {
        neg = 1
        s = substr(s, 2)
    }
    v = s + 0
    return neg ? -v : v
}

function check_text(what, s) {
    if (s == "" || s == "-") {
        fail(what " is empty")
    }
    if (length(s) < 8) {
        fail(what " '" s "' is too short to explain anything")
    }
    if (index(s, ":") > 0) {
        fail(what " contains ':', which papi_avail -e takes for the start of a qualifier")
    }
}

# PAPI's short description: its own text, fitting PAPI_MIN_STR_LEN (64)
function check_short(name, s, long) {
    check_text("short description of " name, s)
    if (length(s) > 63) {
        fail("short description of " name " has " length(s) " characters, at most 63")
    }
    if (substr(long, 1, length(s)) == s) {
        fail("short description of " name " is the long one cut short")
    }
}

# qualifier list "a,b" -> bit mask; checks every name
function qual_mask(list,    n, parts, i, m, id) {
    if (list == "-" || list == "") {
        return 0
    }
    n = split(list, parts, ",")
    m = 0
    for (i = 1; i <= n; i++) {
        if (!(parts[i] in qid)) {
            fail("unknown qualifier '" parts[i] "'")
        }
        id = qid[parts[i]]
        if (bitset(m, id)) {
            fail("qualifier '" parts[i] "' listed twice")
        }
        m += pow2(id)
    }
    return m
}

function pow2(k,    v) {
    v = 1
    while (k-- > 0) {
        v *= 2
    }
    return v
}

function bitset(m, k) {
    return int(m / pow2(k)) % 2 == 1
}

# size of the instance space of a qualifier mask (each qualifier: values + unset)
function inst_space(m,    k, v) {
    v = 1
    for (k = 0; k < nq; k++) {
        if (bitset(m, k)) {
            v *= qcard[k] + 1
        }
    }
    return v
}

function add_event(name, klass, args, units, quals, short, descr, isderived) {
    if (name !~ /^[A-Z][A-Z0-9_]*$/) {
        fail("event name '" name "' must be upper case letters, digits and '_'")
    }
    if (toupper(name) in ename) {
        fail("event '" name "' is defined twice")
    }
    if (units == "" || units == "-") {
        fail("units of " name " are empty")
    }
    check_text("description of " name, descr)
    check_short(name, short, descr)
    ename[toupper(name)] = ne
    ev_short[ne] = short
    ev_name[ne] = name
    ev_class[ne] = klass
    ev_args[ne] = args
    ev_units[ne] = units
    ev_qmask[ne] = qual_mask(quals)
    ev_descr[ne] = descr
    ev_derived[ne] = isderived
    if (inst_space(ev_qmask[ne]) > 1048576) {
        fail("event " name ": its qualifiers allow more than 2^20 combinations")
    }
    ne++
}

BEGIN {
    FS = "\t"
    nq = 0
    nc = 0
    ne = 0
    nt = 0
    nd = 0
    if (comp == "") {
        print "gen-events.awk: set -v comp=NAME" > "/dev/stderr"
        failed = 1
        exit 1
    }
    COMP = toupper(comp)
}

/^#/ || /^[ \t]*$/ {
    next
}

$1 == "qualifier" {
    if (NF < 6) {
        fail("qualifier needs NAME, pos|named, RANGE, DEFAULT, DESCRIPTION")
    }
    if ($2 !~ /^[a-z][a-z0-9_]*$/) {
        fail("qualifier name '" $2 "' must be lower case")
    }
    if ($2 in qid) {
        fail("qualifier '" $2 "' is defined twice")
    }
    if ($3 != "pos" && $3 != "named") {
        fail("qualifier kind must be pos or named, not '" $3 "'")
    }
    if (nq >= 8) {
        fail("at most 8 qualifiers per component")
    }
    check_text("description of qualifier " $2, $6)
    qid[$2] = nq
    q_name[nq] = $2
    q_pos[nq] = ($3 == "pos")
    q_descr[nq] = $6
    if (index($6, "{}") == 0) {
        fail("description of qualifier " $2 " lacks {} (where the value goes)")
    }
    q_hex[nq] = 0
    q_nval[nq] = 0
    q_nbits[nq] = 0
    if (index($4, "..") > 0) {
        split($4, r, /\.\./)
        if (!is_int(r[1]) || !is_int(r[2]) || to_int(r[1]) > to_int(r[2])) {
            fail("bad range '" $4 "'")
        }
        q_min[nq] = to_int(r[1])
        q_max[nq] = to_int(r[2])
        q_hex[nq] = (r[1] ~ /^0x/)
        qcard[nq] = q_max[nq] - q_min[nq] + 1
    } else {
        q_nval[nq] = split($4, vals, "|")
        if (q_nval[nq] < 1) {
            fail("qualifier '" $2 "' has no values")
        }
        for (i = 1; i <= q_nval[nq]; i++) {
            if (vals[i] == "" || (nq SUBSEP toupper(vals[i])) in qval) {
                fail("qualifier '" $2 "': empty or repeated value '" vals[i] "'")
            }
            qval[nq, toupper(vals[i])] = i - 1
            q_val[nq, i - 1] = vals[i]
        }
        q_min[nq] = 0
        q_max[nq] = q_nval[nq] - 1
        qcard[nq] = q_nval[nq]
    }
    q_def[nq] = q_min[nq]
    if ($5 != "-") {
        if (q_nval[nq] > 0) {
            if (!((nq SUBSEP toupper($5)) in qval)) {
                fail("default '" $5 "' is not a value of qualifier " $2)
            }
            q_def[nq] = qval[nq, toupper($5)]
        } else {
            if (!is_int($5) || to_int($5) < q_min[nq] || to_int($5) > q_max[nq]) {
                fail("default '" $5 "' is outside the range of qualifier " $2)
            }
            q_def[nq] = to_int($5)
        }
    }
    nq++
    next
}

$1 == "value" {
    if (NF != 4) {
        fail("value needs QUALIFIER, VALUE, DESCRIPTION")
    }
    if (!($2 in qid)) {
        fail("value of unknown qualifier '" $2 "'")
    }
    k = qid[$2]
    if (!((k SUBSEP toupper($3)) in qval)) {
        fail("'" $3 "' is not a value of qualifier " $2)
    }
    v = qval[k, toupper($3)]
    if ((k SUBSEP v) in q_vdescr) {
        fail("value " $3 " of qualifier " $2 " is described twice")
    }
    check_text("description of " $2 "=" $3, $4)
    q_vdescr[k, v] = $4
    next
}

$1 == "bit" {
    if (NF != 4) {
        fail("bit needs QUALIFIER, MASK, DESCRIPTION")
    }
    if (!($2 in qid) || !q_hex[qid[$2]]) {
        fail("bit of '" $2 "', which is not a hexadecimal qualifier")
    }
    k = qid[$2]
    if (!is_int($3)) {
        fail("bit mask '" $3 "' is not a number")
    }
    m = to_int($3)
    for (b = 0; b < 31 && pow2(b) != m; b++) {
    }
    if (b == 31 || m > q_max[k]) {
        fail("bit mask " $3 " of " $2 " is not one bit of its range")
    }
    if ((k SUBSEP b) in q_bit) {
        fail("bit " $3 " of qualifier " $2 " is described twice")
    }
    check_text("description of bit " $3 " of " $2, $4)
    q_bit[k, b] = $4
    if (b + 1 > q_nbits[k]) {
        q_nbits[k] = b + 1
    }
    next
}

$1 == "class" {
    if ($2 !~ /^[a-z][a-z0-9_]*$/) {
        fail("class name '" $2 "' must be lower case")
    }
    if ($2 in cid) {
        fail("class '" $2 "' is defined twice")
    }
    cid[$2] = nc
    c_name[nc++] = $2
    next
}

$1 == "event" {
    if (NF != 8) {
        fail("event needs NAME, CLASS, ARGS, UNITS, QUALS, SHORT, DESCRIPTION (" NF - 1 " fields)")
    }
    if (!($3 in cid)) {
        fail("unknown class '" $3 "' (declare it with a class line)")
    }
    n = split($4, a, ",")
    if (n < 1 || n > 4) {
        fail("ARGS takes 1 to 4 integers")
    }
    for (i = 1; i <= n; i++) {
        if (!is_int(a[i])) {
            fail("ARGS '" $4 "' is not a list of integers")
        }
    }
    add_event($2, $3, $4, $5, $6, $7, $8, 0)
    next
}

$1 == "derived" {
    if (NF != 7) {
        fail("derived needs NAME, UNITS, QUALS, FORMULA, SHORT, DESCRIPTION (" NF - 1 " fields)")
    }
    f = $5
    div = 1
    if (index(f, "/") > 0) {
        split(f, fd, "/")
        f = fd[1]
        gsub(/ /, "", fd[2])
        if (!is_int(fd[2]) || to_int(fd[2]) < 1) {
            fail("divisor '" fd[2] "' must be a positive integer")
        }
        div = to_int(fd[2])
    }
    gsub(/ /, "", f)
    gsub(/-/, "+-", f)
    n = split(f, parts, "+")
    first = nt
    for (i = 1; i <= n; i++) {
        if (parts[i] == "") {
            if (i == 1) {
                continue
            }
            fail("empty term in formula '" $5 "'")
        }
        mul = 1
        t = parts[i]
        if (substr(t, 1, 1) == "-") {
            mul = -1
            t = substr(t, 2)
        }
        if (index(t, "*") > 0) {
            split(t, tm, "*")
            if (!is_int(tm[1])) {
                fail("coefficient '" tm[1] "' is not an integer")
            }
            mul *= to_int(tm[1])
            t = tm[2]
        }
        if (!(toupper(t) in ename)) {
            fail("formula of " $2 " names unknown event '" t "'")
        }
        k = ename[toupper(t)]
        if (ev_derived[k]) {
            fail("formula of " $2 " uses derived event '" t "': only base events may be used")
        }
        t_ev[nt] = k
        t_mul[nt] = mul
        nt++
    }
    if (nt == first) {
        fail("formula of " $2 " has no terms")
    }
    d_first[ne] = first
    d_n[ne] = nt - first
    d_div[ne] = div
    add_event($2, "", "0", $3, $4, $6, $7, 1)
    nd++
    next
}

{
    fail("unknown line kind '" $1 "' (qualifier, value, bit, class, event or derived)")
}

END {
    if (failed) {
        exit 1
    }
    # every value of a symbolic qualifier, every bit of a mask, described
    for (k = 0; k < nq; k++) {
        for (v = 0; v < q_nval[k]; v++) {
            if (!((k SUBSEP v) in q_vdescr)) {
                FNR = 0
                fail("qualifier " q_name[k] ": value " q_val[k, v] " has no value line")
            }
        }
        if (q_hex[k]) {
            for (b = 0; pow2(b) <= q_max[k]; b++) {
                if (!((k SUBSEP b) in q_bit)) {
                    FNR = 0
                    fail("qualifier " q_name[k] ": bit " pow2(b) " has no bit line")
                }
            }
        }
    }
    if (failed) {
        exit 1
    }
    if (ne == 0) {
        print comp ": no events" > "/dev/stderr"
        exit 1
    }
    if (check) {
        printf "%s: %d events (%d base, %d derived), %d qualifiers, %d classes\n", comp, ne,
            ne - nd, nd, nq, nc
        exit 0
    }
    h = out "/" comp "_table.h"
    c = out "/" comp "_table.c"
    print "/* " comp "_table.h - generated by gen-events.awk from the component's" > h
    print " * .events and presets/ files: do not edit. */" > h
    print "#ifndef " COMP "_TABLE_H" > h
    print "#define " COMP "_TABLE_H" > h
    print "#include \"torus_table.h\"" > h
    print "enum " comp "_class {" > h
    for (i = 0; i < nc; i++) {
        print "    " COMP "_CLASS_" toupper(c_name[i]) " = " i "," > h
    }
    print "    " COMP "_CLASSES = " nc > h
    print "};" > h
    if (nq > 0) {
        print "enum " comp "_qualifier {" > h
        for (i = 0; i < nq; i++) {
            print "    " COMP "_Q_" toupper(q_name[i]) " = " i "," > h
        }
        print "    " COMP "_QUALIFIERS = " nq > h
        print "};" > h
    }
    print "extern const torus_table " comp "_table;" > h
    print "#endif" > h

    print "/* " comp "_table.c - generated by gen-events.awk: do not edit. */" > c
    print "#include \"" comp "_table.h\"" > c
    print "" > c
    for (i = 0; i < nq; i++) {
        if (q_nval[i] > 0) {
            printf "static const char *const q%d_values[] = {", i > c
            for (j = 0; j < q_nval[i]; j++) {
                printf "%s%s", (j ? ", " : ""), cstr(q_val[i, j]) > c
            }
            print "};" > c
            printf "static const char *const q%d_vdescr[] = {\n", i > c
            for (j = 0; j < q_nval[i]; j++) {
                printf "    %s,\n", cstr(q_vdescr[i, j]) > c
            }
            print "};" > c
        }
        if (q_nbits[i] > 0) {
            printf "static const char *const q%d_bits[] = {\n", i > c
            for (j = 0; j < q_nbits[i]; j++) {
                printf "    %s,\n", cstr(q_bit[i, j]) > c
            }
            print "};" > c
        }
    }
    if (nq > 0) {
        print "static const torus_qual_def quals[] = {" > c
        for (i = 0; i < nq; i++) {
            printf "    {%s, %s, %d, %d, %dLL, %dLL, %s, %d, %dLL, %s, %s, %d},\n",
                cstr(q_name[i]), cstr(q_descr[i]), q_pos[i], q_hex[i], q_min[i], q_max[i],
                (q_nval[i] > 0 ? "q" i "_values" : "0"), q_nval[i], q_def[i],
                (q_nval[i] > 0 ? "q" i "_vdescr" : "0"), (q_nbits[i] > 0 ? "q" i "_bits" : "0"),
                q_nbits[i] > c
        }
        print "};" > c
    }
    if (nt > 0) {
        print "static const torus_term terms[] = {" > c
        for (i = 0; i < nt; i++) {
            printf "    {%d, %dLL}, /* %s */\n", t_ev[i], t_mul[i], ev_name[t_ev[i]] > c
        }
        print "};" > c
    }
    print "static const torus_event_def events[] = {" > c
    for (i = 0; i < ne; i++) {
        n = split(ev_args[i], a, ",")
        args = ""
        for (j = 1; j <= 4; j++) {
            args = args (j > 1 ? ", " : "") (j <= n ? to_int(a[j]) : 0)
        }
        klass = ev_derived[i] ? "TORUS_CLASS_DERIVED" : COMP "_CLASS_" toupper(ev_class[i])
        printf "    {%s, %s, %s, %s, {%s}, 0x%xu, %d, %d, %dLL, %s},\n", cstr(ev_name[i]),
            cstr(ev_units[i]), cstr(ev_descr[i]), klass, args, ev_qmask[i],
            (ev_derived[i] ? d_first[i] : 0), (ev_derived[i] ? d_n[i] : 0),
            (ev_derived[i] ? d_div[i] : 1), cstr(ev_short[i]) > c
    }
    print "};" > c
    print "" > c
    print "const torus_table " comp "_table = {" > c
    print "    " cstr(comp) "," > c
    print "    events, (int)(sizeof events / sizeof events[0])," > c
    if (nq > 0) {
        print "    quals, (int)(sizeof quals / sizeof quals[0])," > c
    } else {
        print "    0, 0," > c
    }
    if (nt > 0) {
        print "    terms, (int)(sizeof terms / sizeof terms[0])," > c
    } else {
        print "    0, 0," > c
    }
    print "};" > c
}

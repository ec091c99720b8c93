/*
 * test_gemini.c - Gemini tile map, media, bandwidths, transaction sizes,
 * interconnect file.
 */
#include "testutil.h"

#include <math.h>
#include <regex.h>

START_TEST(test_fig3_tile_map)
{
    /* Pedretti 2013 Fig. 3, row by row */
    const char *rows[6] = {"Z+ Z+ X+ X+ X- X- Z- Z-", "Z+ Z+ X+ X+ X- X- Z- Z-",
                           "Z- Z- Z- HH HH Z+ Z+ Z+", "X+ X+ Z- HH HH Z+ X- X-",
                           "X+ X+ Y- HH HH Y+ X- X-", "Y- Y- Y- HH HH Y+ Y+ Y+"};
    temu_machine m = test_machine("cielo");
    for (int r = 0; r < 6; r++) {
        char line[64] = "";
        for (int c = 0; c < 8; c++) {
            strcat(line, temu_link_name(&m, temu_gemini_tile_link(r * 8 + c)));
            if (c < 7) {
                strcat(line, " ");
            }
        }
        ck_assert_str_eq(line, rows[r]);
    }
    int tiles[48];
    int counts[7] = {8, 8, 4, 4, 8, 8, 8}; /* X-,X+,Y-,Y+,Z-,Z+,host */
    for (int l = 0; l < 7; l++) {
        ck_assert_int_eq(temu_gemini_link_tiles(l, tiles), counts[l]);
    }
    int host[] = {19, 20, 27, 28, 35, 36, 43, 44};
    ck_assert_int_eq(temu_gemini_link_tiles(6, tiles), 8);
    ck_assert_mem_eq(tiles, host, sizeof host);
    ck_assert_int_eq(temu_gemini_tile_link(48), -1);
}
END_TEST

START_TEST(test_peer_tiles)
{
    for (int t = 0; t < 48; t++) {
        int link = temu_gemini_tile_link(t);
        int p = temu_gemini_peer_tile(t);
        if (link == 6) {
            ck_assert_int_eq(p, -1);
            continue;
        }
        ck_assert_int_eq(temu_gemini_tile_link(p), link ^ 1); /* X+ faces X- */
        ck_assert_int_eq(temu_gemini_peer_tile(p), t);
    }
    ck_assert_int_eq(temu_gemini_peer_tile(2), 4); /* first X+ tile -> first X- tile */
}
END_TEST

START_TEST(test_media_and_bandwidth)
{
    temu_machine m = test_machine("cielo"); /* 16x12x24 */
    int32_t c[3] = {0, 0, 0};
    int64_t r = temu_router_index(&m, c);
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 1), TEMU_MEDIUM_CABLE);     /* X+ */
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 3), TEMU_MEDIUM_MEZZANINE); /* Y+ 0->1 */
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 2), TEMU_MEDIUM_CABLE);     /* Y- 11->0 */
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 5), TEMU_MEDIUM_BACKPLANE); /* Z+ 0->1 */
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 4), TEMU_MEDIUM_CABLE);     /* Z- 23->0 */
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 6), TEMU_MEDIUM_HOST);
    c[1] = 1;
    r = temu_router_index(&m, c);
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 3), TEMU_MEDIUM_CABLE);     /* Y+ 1->2 */
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 2), TEMU_MEDIUM_MEZZANINE); /* Y- 0->1 */
    c[1] = 0;
    c[2] = 7;
    r = temu_router_index(&m, c);
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 5), TEMU_MEDIUM_CABLE); /* every 8th Z */
    ck_assert_int_eq(temu_gemini_link_medium(&m, r, 4), TEMU_MEDIUM_BACKPLANE);
    /* link bandwidths of Pedretti 2013 Fig. 4 / Table II */
    c[2] = 0;
    r = temu_router_index(&m, c);
    ck_assert_double_eq_tol(temu_gemini_link_bandwidth(&m, r, 1), 9.375, 1e-9);
    ck_assert_double_eq_tol(temu_gemini_link_bandwidth(&m, r, 3), 9.375, 1e-9);
    ck_assert_double_eq_tol(temu_gemini_link_bandwidth(&m, r, 2), 4.6875, 1e-9);
    ck_assert_double_eq_tol(temu_gemini_link_bandwidth(&m, r, 5), 15.0, 1e-9);
    ck_assert_double_eq_tol(temu_gemini_link_bandwidth(&m, r, 6), 10.40, 0.005);
    ck_assert_double_eq_tol(temu_medium_tile_bandwidth(TEMU_MEDIUM_MEZZANINE), 2.34, 0.005);
    ck_assert_double_eq_tol(temu_medium_tile_bandwidth(TEMU_MEDIUM_BACKPLANE), 1.88, 0.006);
    ck_assert_double_eq_tol(temu_medium_tile_bandwidth(TEMU_MEDIUM_CABLE), 1.17, 0.005);
}
END_TEST

START_TEST(test_transaction_phits)
{
    /* Pedretti 2013 V.A: PUT 64 B = 32 + 3 phits, GET 64 B = 8 + 27 phits, both 105 B */
    ck_assert_uint_eq(temu_gemini_put_request_phits(64, 0), 32);
    ck_assert_uint_eq(TEMU_GEMINI_PUT_RESPONSE_PHITS, 3);
    ck_assert_uint_eq(TEMU_GEMINI_GET_REQUEST_PHITS, 8);
    ck_assert_uint_eq(temu_gemini_get_response_phits(64, 0), 27);
    ck_assert_uint_eq(3 * (temu_gemini_put_request_phits(64, 0) + 3), 105);
    ck_assert_uint_eq(3 * (8 + temu_gemini_get_response_phits(64, 0)), 105);
    /* shorter transactions: 8 header + ceil(3p/8) */
    ck_assert_uint_eq(temu_gemini_put_request_phits(8, 0), 11);
    ck_assert_uint_eq(temu_gemini_put_request_phits(1, 0), 9);
    ck_assert_uint_eq(temu_gemini_put_request_phits(48, 0), 26);
    ck_assert_uint_eq(temu_gemini_get_response_phits(16, 0), 9);
    /* compression drops the data phits */
    ck_assert_uint_eq(temu_gemini_put_request_phits(64, 1), 8);
    ck_assert_uint_eq(temu_gemini_get_response_phits(64, 1), 3);
}
END_TEST

START_TEST(test_payload_uniform)
{
    unsigned char b[100];
    memset(b, 0, sizeof b);
    ck_assert_int_eq(temu_payload_is_uniform(b, 100), 1);
    memset(b, 0xff, sizeof b);
    ck_assert_int_eq(temu_payload_is_uniform(b, 100), 1);
    ck_assert_int_eq(temu_payload_is_uniform(b, 0), 1);
    b[99] = 0xfe; /* tail byte breaks the run of ones */
    ck_assert_int_eq(temu_payload_is_uniform(b, 100), 0);
    ck_assert_int_eq(temu_payload_is_uniform(b, 99), 1);
    memset(b, 0, sizeof b);
    b[7] = 1;
    ck_assert_int_eq(temu_payload_is_uniform(b, 64), 0);
    memset(b, 0x55, sizeof b); /* alternating bits are not a run */
    ck_assert_int_eq(temu_payload_is_uniform(b, 64), 0);
}
END_TEST

static char *interconnect_text(const char *spec, size_t *lines)
{
    temu_machine m = test_machine(spec);
    temu_error err;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(temu_gemini_write_interconnect(&m, f, &err), TEMU_OK);
    fclose(f);
    *lines = 0;
    for (size_t i = 0; i < len; i++) {
        *lines += text[i] == '\n';
    }
    return text;
}

START_TEST(test_interconnect_format)
{
    size_t lines;
    char *text = interconnect_text("gemini-tiny", &lines);
    ck_assert_uint_eq(lines, 8 * 40); /* 40 lines per Gemini */
    regex_t re;
    ck_assert_int_eq(regcomp(&re,
                             "^c[0-9]+-[0-9]+c[0-9]s[0-9]g[01]l[0-5][0-7]\\[\\([0-9]+,[0-9]+,[0-9]+"
                             "\\)\\] [XYZ][+-] -> c[0-9]+-[0-9]+c[0-9]s[0-9]g[01]l[0-5][0-7]"
                             "\\[\\([0-9]+,[0-9]+,[0-9]+\\)\\] LinkType: "
                             "(backplane|mezzanine|cable[0-9][0-9][xyz])$",
                             REG_EXTENDED | REG_NOSUB),
                     0);
    char *save = NULL;
    int n = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        ck_assert_msg(regexec(&re, line, 0, NULL, 0) == 0, "bad line: %s", line);
        n++;
    }
    ck_assert_int_eq(n, 320);
    regfree(&re);
    free(text);

    /* the first line of Cielo: tile 0 of (0,0,0) is Z+ over the backplane */
    text = interconnect_text("cielo", &lines);
    ck_assert_uint_eq(lines, 40 * 4608); /* 184,320 lines (Pedretti 2013 §III) */
    ck_assert_int_eq(strncmp(text, "c0-0c0s0g0l00[(0,0,0)] Z+ -> c0-0c0s1g0l", 40), 0);
    ck_assert_ptr_nonnull(strstr(text, "c0-0c0s0g0l06[(0,0,0)] Z- -> c0-0c2s7g0l"));
    free(text);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_interconnect_symmetric)
{
    /* every line A tile t D -> B tile u has its mirror B tile u -D -> A tile t */
    size_t lines;
    char *text = interconnect_text("gemini:3x4x9", &lines);
    char **line = calloc(lines, sizeof *line);
    char *save = NULL;
    size_t n = 0;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line[n++] = l;
    }
    ck_assert_uint_eq(n, 108 * 40);
    qsort(line, n, sizeof *line, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char a[64], b[64], dir[4], type[32], mirror[200];
        ck_assert_int_eq(sscanf(line[i], "%63s %3s -> %63s LinkType: %31s", a, dir, b, type), 4);
        dir[1] = dir[1] == '+' ? '-' : '+';
        snprintf(mirror, sizeof mirror, "%s %s -> %s LinkType: %s", b, dir, a, type);
        char *key = mirror;
        ck_assert_msg(bsearch(&key, line, n, sizeof *line, cmp_str) != NULL, "no mirror for %s",
                      line[i]);
    }
    free(line);
    free(text);
    temu_machine q = test_machine("midplane");
    temu_error err;
    FILE *f = fopen("/dev/null", "w");
    ck_assert_int_eq(temu_gemini_write_interconnect(&q, f, &err), TEMU_EINVAL);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(err.message, "only for Gemini"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemini");
    TCase *tc = tcase_create("gemini");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fig3_tile_map);
    tcase_add_test(tc, test_peer_tiles);
    tcase_add_test(tc, test_media_and_bandwidth);
    tcase_add_test(tc, test_transaction_phits);
    tcase_add_test(tc, test_payload_uniform);
    tcase_add_test(tc, test_interconnect_format);
    tcase_add_test(tc, test_interconnect_symmetric);
    suite_add_tcase(s, tc);
    return test_run(s);
}

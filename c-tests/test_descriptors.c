/*
 * The constants of gregor.h against the library's descriptor tables, no
 * broker needed. scripts/c-tests.sh writes every integer #define of the
 * header into header_constants.inc as { "NAME", NAME }, so this file
 * compiles each macro as a C program sees it; at run time each one must
 * name a descriptor (gregor_get_err_descs for GREGOR_ERR_*, the enum
 * descriptor functions for the rest) with the same value, and every
 * descriptor must have its constant in the header. Also: gregor_err_name
 * and gregor_err_str agree with gregor_get_err_descs, and NULL out-pointers
 * are accepted.
 */
#include "check.h"

struct header_constant {
    const char *name;
    long long value;
};

static const struct header_constant constants[] = {
#include "header_constants.inc"
};
#define N_CONSTANTS (sizeof constants / sizeof constants[0])

typedef void (*enum_descs_fn)(const gregor_enum_desc **, size_t *);

static const struct {
    const char *what;
    enum_descs_fn fn;
} enums[] = {
    {"acl_operation", gregor_get_acl_operation_descs},
    {"acl_permission_type", gregor_get_acl_permission_type_descs},
    {"resource_type", gregor_get_resource_type_descs},
    {"resource_pattern_type", gregor_get_resource_pattern_type_descs},
    {"config_resource_type", gregor_get_config_resource_type_descs},
    {"config_source", gregor_get_config_source_descs},
    {"config_type", gregor_get_config_type_descs},
    {"alter_config_op_type", gregor_get_alter_config_op_type_descs},
    {"scram_mechanism", gregor_get_scram_mechanism_descs},
    {"election_type", gregor_get_election_type_descs},
};
#define N_ENUMS (sizeof enums / sizeof enums[0])

/* How many header constants name each descriptor (must end up 1 each). */
static int err_seen[1024];
static int enum_seen[N_ENUMS][64];

int main(void) {
    const gregor_err_desc *errs = NULL;
    size_t n_errs = 0;
    gregor_get_err_descs(&errs, &n_errs);
    CHECK(errs != NULL);
    CHECK(n_errs > 150 && n_errs < 1024);
    gregor_get_err_descs(NULL, NULL); /* NULL out-pointers are skipped */

    for (size_t i = 0; i < n_errs; i++) {
        CHECK(errs[i].name != NULL && errs[i].desc != NULL);
        CHECK_STR(gregor_err_name(errs[i].code), errs[i].name);
        CHECK_STR(gregor_err_str(errs[i].code), errs[i].desc);
        if (i > 0)
            CHECK_MSG(errs[i - 1].code < errs[i].code, "%s after %s", errs[i].name,
                      errs[i - 1].name);
    }

    const gregor_enum_desc *e[N_ENUMS];
    size_t n_e[N_ENUMS];
    for (size_t k = 0; k < N_ENUMS; k++) {
        e[k] = NULL;
        n_e[k] = 0;
        enums[k].fn(&e[k], &n_e[k]);
        CHECK_MSG(e[k] != NULL && n_e[k] > 0 && n_e[k] < 64, "%s", enums[k].what);
        enums[k].fn(NULL, NULL);
    }

    size_t matched = 0, other = 0;
    for (size_t c = 0; c < N_CONSTANTS; c++) {
        const char *name = constants[c].name;
        long long value = constants[c].value;
        int found = 0;
        if (strncmp(name, "GREGOR_ERR_", 11) == 0) {
            for (size_t i = 0; i < n_errs; i++) {
                if (strcmp(errs[i].name, name + 11) == 0) {
                    CHECK_MSG(errs[i].code == value, "%s is %lld in gregor.h, %d in the library",
                              name, value, errs[i].code);
                    err_seen[i]++;
                    found = 1;
                }
            }
            CHECK_MSG(found, "%s: no such error code in gregor_get_err_descs", name);
        } else {
            for (size_t k = 0; k < N_ENUMS; k++) {
                for (size_t i = 0; i < n_e[k]; i++) {
                    if (strcmp(e[k][i].constant, name) == 0) {
                        CHECK_MSG(e[k][i].value == value,
                                  "%s is %lld in gregor.h, %d in the library (%s)", name, value,
                                  e[k][i].value, enums[k].what);
                        enum_seen[k][i]++;
                        found = 1;
                    }
                }
            }
        }
        if (found)
            matched++;
        else
            other++;
    }
    for (size_t i = 0; i < n_errs; i++)
        CHECK_MSG(err_seen[i] == 1, "GREGOR_ERR_%s (%d) is in gregor.h %d times", errs[i].name,
                  errs[i].code, err_seen[i]);
    for (size_t k = 0; k < N_ENUMS; k++)
        for (size_t i = 0; i < n_e[k]; i++)
            CHECK_MSG(enum_seen[k][i] == 1, "%s (%s %s = %d) is in gregor.h %d times",
                      e[k][i].constant, enums[k].what, e[k][i].name, e[k][i].value,
                      enum_seen[k][i]);

    /* Spot checks against the numbers Kafka and librdkafka define. */
    CHECK_INT(GREGOR_ERR__TIMED_OUT, -185);
    CHECK_INT(GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION, 3);
    CHECK_INT(GREGOR_ACL_OPERATION_IDEMPOTENT_WRITE, 12);
    CHECK_INT(GREGOR_ACL_OPERATION_TWO_PHASE_COMMIT, 15);
    CHECK_INT(GREGOR_CONFIG_SOURCE_GROUP, 8);
    CHECK_INT(GREGOR_CONFIG_TYPE_PASSWORD, 9);
    CHECK_STR(gregor_err_name(0), "NO_ERROR");

    printf("%zu constants of gregor.h checked against %zu error and %zu enum descriptor tables "
           "(%zu other constants)\n",
           matched, n_errs, (size_t)N_ENUMS, other);
    return 0;
}

/* The plain-data probe of gregor's librdkafka (scripts/rdkafka-abi-check.sh):
 * compiled against the real librdkafka's rdkafka.h and linked once against
 * gregor's librdkafka.so.1 and once against the real one; the two outputs
 * must be identical. Also run under valgrind against gregor's (no leak, no
 * invalid access).
 *
 * It exercises the families that need no client handle:
 *   - topic partition lists: new (0, negative and positive sizes), add and
 *     its defaults, how `size` grows, add_range (empty and not), find
 *     (first of duplicates, missing), set_offset (missing: the error;
 *     duplicates: the first), del and del_by_idx (missing, out of range,
 *     down to empty, then adding again), sort (default order and
 *     a comparator with its opaque), copy (deep: topics, metadata the
 *     application malloc'ed, opaque, err, leader epochs; independent of
 *     the source), leader epochs (default -1, set, clear), destroy;
 *   - headers: add (sizes -1, explicit, a NULL value, a value with a NUL
 *     inside), cnt, get_all by index, get by name and index, get_last,
 *     copy, remove then NOENT, a name with a NUL inside (get matches the
 *     whole name, remove as strcmp reads it), value pointers staying valid while the set
 *     grows, destroy;
 *   - rd_kafka_mem_malloc / _calloc / _free;
 *   - rd_kafka_Uuid_*: new, copy, bits, base64str, destroy.
 * Pointers are never printed, only what they point to or how they relate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

static void print_bytes(const void *p, size_t n) {
        const unsigned char *b = p;
        size_t i;
        if (!p) {
                printf("NULL");
                return;
        }
        putchar('"');
        for (i = 0; i < n; i++) {
                if (b[i] >= 32 && b[i] < 127 && b[i] != '"' && b[i] != '\\')
                        putchar(b[i]);
                else
                        printf("\\x%02x", b[i]);
        }
        putchar('"');
}

static void print_elem(const char *label, const rd_kafka_topic_partition_t *e) {
        printf("%s: topic=%s partition=%d offset=%lld metadata=", label,
               e->topic ? e->topic : "(null)", (int)e->partition, (long long)e->offset);
        print_bytes(e->metadata, e->metadata_size);
        printf(" metadata_size=%zu opaque=%s err=%s leader_epoch=%d\n", e->metadata_size,
               e->opaque ? "set" : "NULL", rd_kafka_err2name(e->err),
               (int)rd_kafka_topic_partition_get_leader_epoch(e));
}

static void print_list(const char *label, const rd_kafka_topic_partition_list_t *l) {
        int i;
        printf("%s: cnt=%d size=%d\n", label, l->cnt, l->size);
        for (i = 0; i < l->cnt; i++) {
                char buf[64];
                snprintf(buf, sizeof buf, "  [%d]", i);
                print_elem(buf, &l->elems[i]);
        }
}

static int find_idx(const rd_kafka_topic_partition_list_t *l, const char *topic, int32_t p) {
        const rd_kafka_topic_partition_t *e = rd_kafka_topic_partition_list_find(l, topic, p);
        return e ? (int)(e - l->elems) : -1;
}

/* Descending partition, then descending topic; counts its calls. */
static int cmp_desc(const void *a, const void *b, void *opaque) {
        const rd_kafka_topic_partition_t *x = a, *y = b;
        (*(int *)opaque)++;
        if (x->partition != y->partition)
                return x->partition < y->partition ? 1 : -1;
        return -strcmp(x->topic, y->topic);
}

static void partition_lists(void) {
        rd_kafka_topic_partition_list_t *l, *c, *e;
        rd_kafka_topic_partition_t *el;
        int i, last = -1, calls = 0;
        static const struct {
                const char *topic;
                int32_t partition;
        } messy[] = {{"b", 1}, {"a", 2}, {"b", 0}, {"a", 0}, {"ab", 5}, {"", 3}, {"B", 9}, {"a", -1}};

        l = rd_kafka_topic_partition_list_new(0);
        printf("new(0): cnt=%d size=%d elems=%s\n", l->cnt, l->size, l->elems ? "set" : "NULL");
        rd_kafka_topic_partition_list_destroy(l);
        l = rd_kafka_topic_partition_list_new(-5);
        printf("new(-5): cnt=%d size=%d\n", l->cnt, l->size);
        rd_kafka_topic_partition_list_destroy(l);
        l = rd_kafka_topic_partition_list_new(3);
        printf("new(3): cnt=%d size=%d\n", l->cnt, l->size);
        rd_kafka_topic_partition_list_destroy(l);

        /* growth: the size after each add, printed when it changes */
        l = rd_kafka_topic_partition_list_new(0);
        for (i = 0; i < 200; i++) {
                rd_kafka_topic_partition_list_add(l, "grow", i);
                if (l->size != last)
                        printf("grow: after %d adds size=%d\n", i + 1, l->size);
                last = l->size;
        }
        printf("grow: cnt=%d last=[%d] partition %d\n", l->cnt, l->cnt - 1,
               (int)l->elems[l->cnt - 1].partition);
        rd_kafka_topic_partition_list_destroy(l);

        l = rd_kafka_topic_partition_list_new(2);
        el = rd_kafka_topic_partition_list_add(l, "t1", 7);
        printf("add returns the last element: %s\n", el == &l->elems[l->cnt - 1] ? "yes" : "no");
        print_elem("add defaults", el);
        rd_kafka_topic_partition_list_add_range(l, "t2", 5, 3);
        printf("add_range(5, 3): cnt=%d\n", l->cnt);
        rd_kafka_topic_partition_list_add_range(l, "t2", 0, 3);
        rd_kafka_topic_partition_list_add(l, "t1", 7)->offset = 70;
        print_list("after adds", l);

        printf("find t2/2: %d\n", find_idx(l, "t2", 2));
        printf("find t1/7 (first of two): %d\n", find_idx(l, "t1", 7));
        printf("find t2/9: %d\n", find_idx(l, "t2", 9));
        printf("find t3/0: %d\n", find_idx(l, "t3", 0));
        printf("set_offset t2/1 42: %s\n", rd_kafka_err2name(rd_kafka_topic_partition_list_set_offset(l, "t2", 1, 42)));
        printf("set_offset t2/9 42: %s\n", rd_kafka_err2name(rd_kafka_topic_partition_list_set_offset(l, "t2", 9, 42)));
        printf("del t9/0: %d\n", rd_kafka_topic_partition_list_del(l, "t9", 0));
        printf("del t1/7: %d\n", rd_kafka_topic_partition_list_del(l, "t1", 7));
        printf("del_by_idx -1: %d\n", rd_kafka_topic_partition_list_del_by_idx(l, -1));
        printf("del_by_idx cnt: %d\n", rd_kafka_topic_partition_list_del_by_idx(l, l->cnt));
        printf("del_by_idx 1: %d\n", rd_kafka_topic_partition_list_del_by_idx(l, 1));
        print_list("after dels", l);
        while (l->cnt > 0)
                rd_kafka_topic_partition_list_del_by_idx(l, l->cnt - 1);
        printf("deleted all: cnt=%d size=%d\n", l->cnt, l->size);
        rd_kafka_topic_partition_list_add(l, "again", 0);
        rd_kafka_topic_partition_list_add(l, "again", 0)->offset = 2;
        printf("set_offset on a duplicate: %s\n",
               rd_kafka_err2name(rd_kafka_topic_partition_list_set_offset(l, "again", 0, 1)));
        print_list("reused", l);
        rd_kafka_topic_partition_list_destroy(l);

        l = rd_kafka_topic_partition_list_new(1);
        for (i = 0; i < (int)(sizeof messy / sizeof *messy); i++)
                rd_kafka_topic_partition_list_add(l, messy[i].topic, messy[i].partition)->offset = i;
        rd_kafka_topic_partition_list_sort(l, NULL, NULL);
        print_list("sort default", l);
        rd_kafka_topic_partition_list_sort(l, cmp_desc, &calls);
        print_list("sort cmp_desc", l);
        printf("cmp_desc called with its opaque: %s\n", calls > 0 ? "yes" : "no");
        rd_kafka_topic_partition_list_destroy(l);

        /* copy: deep, and independent of the source */
        l = rd_kafka_topic_partition_list_new(5);
        el = rd_kafka_topic_partition_list_add(l, "c", 0);
        el->offset = 100;
        el->metadata = malloc(4); /* the application's own, freed by the list */
        memcpy(el->metadata, "m\0et", 4);
        el->metadata_size = 4;
        el->opaque = &calls;
        el->err = RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE;
        rd_kafka_topic_partition_set_leader_epoch(el, 12);
        el = rd_kafka_topic_partition_list_add(l, "c", 1);
        el->metadata = malloc(1);
        el->metadata_size = 0; /* not copied: librdkafka copies only a size > 0 */
        el = rd_kafka_topic_partition_list_add(l, "d", 2);
        rd_kafka_topic_partition_set_leader_epoch(el, 3);
        rd_kafka_topic_partition_set_leader_epoch(el, -1);
        c = rd_kafka_topic_partition_list_copy(l);
        print_list("copy", c);
        printf("copy: opaque is the same pointer: %s\n",
               c->elems[0].opaque == (void *)&calls ? "yes" : "no");
        printf("copy: metadata is its own: %s; topic is its own: %s\n",
               c->elems[0].metadata != l->elems[0].metadata ? "yes" : "no",
               c->elems[0].topic != l->elems[0].topic ? "yes" : "no");
        rd_kafka_topic_partition_list_set_offset(l, "c", 0, 5);
        ((char *)l->elems[0].metadata)[0] = 'X';
        rd_kafka_topic_partition_set_leader_epoch(&l->elems[0], 99);
        rd_kafka_topic_partition_list_add(l, "e", 0);
        print_list("source changed", l);
        rd_kafka_topic_partition_list_destroy(l);
        print_list("copy after the source's destroy", c);
        rd_kafka_topic_partition_set_leader_epoch(&c->elems[1], 0);
        printf("leader epoch set to 0: %d\n", (int)rd_kafka_topic_partition_get_leader_epoch(&c->elems[1]));
        rd_kafka_topic_partition_list_destroy(c);

        e = rd_kafka_topic_partition_list_new(0);
        c = rd_kafka_topic_partition_list_copy(e);
        printf("copy of new(0): cnt=%d size=%d\n", c->cnt, c->size);
        rd_kafka_topic_partition_list_destroy(c);
        rd_kafka_topic_partition_list_destroy(e);
        e = rd_kafka_topic_partition_list_new(10);
        c = rd_kafka_topic_partition_list_copy(e);
        printf("copy of new(10): cnt=%d size=%d\n", c->cnt, c->size);
        rd_kafka_topic_partition_list_destroy(c);
        rd_kafka_topic_partition_list_destroy(e);
}

static void print_header_get(const char *label, rd_kafka_resp_err_t err, const void *v, size_t n) {
        printf("%s: %s", label, rd_kafka_err2name(err));
        if (!err) {
                printf(" value=");
                print_bytes(v, n);
                printf(" size=%zu", n);
                if (v)
                        printf(" nul-terminated=%s", ((const char *)v)[n] == '\0' ? "yes" : "no");
        }
        printf("\n");
}

static void print_headers(const char *label, const rd_kafka_headers_t *h) {
        size_t i;
        printf("%s: cnt=%zu\n", label, rd_kafka_header_cnt(h));
        for (i = 0; i <= rd_kafka_header_cnt(h); i++) {
                const char *name = NULL;
                const void *v = NULL;
                size_t n = 0;
                rd_kafka_resp_err_t err = rd_kafka_header_get_all(h, i, &name, &v, &n);
                printf("  get_all(%zu): %s", i, rd_kafka_err2name(err));
                if (!err) {
                        printf(" name=%s value=", name);
                        print_bytes(v, n);
                        printf(" size=%zu", n);
                }
                printf("\n");
        }
}

/* Calls first, then prints what the call left in v and n. */
#define GET(label, call)                                                       \
        do {                                                                   \
                rd_kafka_resp_err_t err_ = (call);                             \
                print_header_get(label, err_, v, n);                           \
        } while (0)

static void headers(void) {
        rd_kafka_headers_t *h, *c;
        const void *v, *kept;
        size_t n, kept_n;
        int i;
        char name[32];

        h = rd_kafka_headers_new(0);
        print_headers("new(0)", h);
        printf("add a: %s\n", rd_kafka_err2name(rd_kafka_header_add(h, "a", -1, "1", -1)));
        printf("add b NULL size 5: %s\n", rd_kafka_err2name(rd_kafka_header_add(h, "b", -1, NULL, 5)));
        printf("add a 22: %s\n", rd_kafka_err2name(rd_kafka_header_add(h, "a", -1, "22", 2)));
        printf("add bin: %s\n", rd_kafka_err2name(rd_kafka_header_add(h, "bin", 3, "x\0y", 3)));
        printf("add name_size 4: %s\n",
               rd_kafka_err2name(rd_kafka_header_add(h, "namexyz", 4, "v", -1)));
        printf("add empty: %s\n", rd_kafka_err2name(rd_kafka_header_add(h, "", -1, "", 0)));
        printf("add q\\0r (name_size 3): %s\n",
               rd_kafka_err2name(rd_kafka_header_add(h, "q\0r", 3, "nul", 3)));
        print_headers("after adds", h);

        v = NULL;
        n = 99;
        GET("get_last a", rd_kafka_header_get_last(h, "a", &v, &n));
        GET("get_last b", rd_kafka_header_get_last(h, "b", &v, &n));
        GET("get_last name", rd_kafka_header_get_last(h, "name", &v, &n));
        GET("get_last namexyz", rd_kafka_header_get_last(h, "namexyz", &v, &n));
        GET("get_last empty", rd_kafka_header_get_last(h, "", &v, &n));
        GET("get_last zzz", rd_kafka_header_get_last(h, "zzz", &v, &n));
        GET("get_last q (q\\0r is longer)", rd_kafka_header_get_last(h, "q", &v, &n));
        printf("remove q (strcmp stops at q\\0r's NUL): %s\n",
               rd_kafka_err2name(rd_kafka_header_remove(h, "q")));
        printf("cnt after remove q: %zu\n", rd_kafka_header_cnt(h));
        for (i = 0; i < 3; i++) {
                char label[32];
                snprintf(label, sizeof label, "get(%d, a)", i);
                GET(label, rd_kafka_header_get(h, (size_t)i, "a", &v, &n));
        }
        GET("get(0, bin)", rd_kafka_header_get(h, 0, "bin", &v, &n));

        /* a value's pointer stays valid while the set grows */
        rd_kafka_header_get_last(h, "a", &kept, &kept_n);
        for (i = 0; i < 100; i++) {
                snprintf(name, sizeof name, "x%d", i);
                rd_kafka_header_add(h, name, -1, name, -1);
        }
        print_header_get("kept value after 100 adds", RD_KAFKA_RESP_ERR_NO_ERROR, kept, kept_n);
        printf("cnt after 100 adds: %zu\n", rd_kafka_header_cnt(h));
        for (i = 0; i < 100; i++) {
                snprintf(name, sizeof name, "x%d", i);
                rd_kafka_header_remove(h, name);
        }

        c = rd_kafka_headers_copy(h);
        printf("remove a: %s\n", rd_kafka_err2name(rd_kafka_header_remove(h, "a")));
        printf("remove a again: %s\n", rd_kafka_err2name(rd_kafka_header_remove(h, "a")));
        printf("remove zzz: %s\n", rd_kafka_err2name(rd_kafka_header_remove(h, "zzz")));
        GET("get_last a after remove", rd_kafka_header_get_last(h, "a", &v, &n));
        print_headers("after removes", h);
        print_headers("copy", c);
        GET("copy get_last a", rd_kafka_header_get_last(c, "a", &v, &n));
        rd_kafka_headers_destroy(h);
        printf("add to copy: %s\n", rd_kafka_err2name(rd_kafka_header_add(c, "new", -1, NULL, -1)));
        print_headers("copy after the source's destroy", c);
        rd_kafka_headers_destroy(c);

        h = rd_kafka_headers_new(64);
        c = rd_kafka_headers_copy(h);
        printf("copy of empty: cnt=%zu\n", rd_kafka_header_cnt(c));
        rd_kafka_headers_destroy(c);
        rd_kafka_headers_destroy(h);
}

static void memory(void) {
        unsigned char *p = rd_kafka_mem_malloc(NULL, 16);
        int *z = rd_kafka_mem_calloc(NULL, 4, sizeof(int));
        printf("mem_malloc(16): %s\n", p ? "set" : "NULL");
        memset(p, 0xab, 16);
        printf("mem_calloc(4, int): %d %d %d %d\n", z[0], z[1], z[2], z[3]);
        rd_kafka_mem_free(NULL, p);
        rd_kafka_mem_free(NULL, z);
        rd_kafka_mem_free(NULL, NULL);
        printf("mem_free: done\n");
}

static void uuids(void) {
        static const int64_t bits[][2] = {
            {0, 0}, {1, 2}, {-1, -1}, {0x0123456789abcdefLL, (int64_t)0xfedcba9876543210ULL}};
        size_t i;
        for (i = 0; i < sizeof bits / sizeof *bits; i++) {
                rd_kafka_Uuid_t *u = rd_kafka_Uuid_new(bits[i][0], bits[i][1]);
                rd_kafka_Uuid_t *c = rd_kafka_Uuid_copy(u);
                printf("uuid %lld %lld: msb=%lld lsb=%lld base64=%s", (long long)bits[i][0],
                       (long long)bits[i][1], (long long)rd_kafka_Uuid_most_significant_bits(u),
                       (long long)rd_kafka_Uuid_least_significant_bits(u), rd_kafka_Uuid_base64str(u));
                rd_kafka_Uuid_destroy(u);
                printf(" copy: msb=%lld lsb=%lld base64=%s\n",
                       (long long)rd_kafka_Uuid_most_significant_bits(c),
                       (long long)rd_kafka_Uuid_least_significant_bits(c), rd_kafka_Uuid_base64str(c));
                rd_kafka_Uuid_destroy(c);
        }
}

int main(void) {
        partition_lists();
        headers();
        memory();
        uuids();
        return 0;
}

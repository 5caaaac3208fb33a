/* evalkit.data._native_runs: the compiled reader of the collection build (issue 30, part 4b).
 *
 * It reads *regular* run files: every line six non-empty fields between one delimiter (the same space or tab
 * throughout), ASCII, no NUL / \r / \v / \f, no blank or comment line, every score wholly a finite decimal number.
 * For anything else feed() returns False (finish() None) and the caller builds with the pure-Python build
 * (evalkit.data.build), which reads every layout the kit reads and names each error by file and line. Nothing here
 * decides what is an error: an input this reader does not take is simply not read here.
 *
 * Python interface (the passes release the GIL; calls on disjoint runs or topics may run in threads at once):
 *
 *   Builder(topics: list[bytes], float32_ties: bool, n_runs: int, n_lanes: int = 1)
 *   .feed(index, piece, size_hint=0, lane=0) -> bool
 *        reads the next piece of run ``index``'s file (any bytes-like; the pieces end anywhere, even inside a
 *        line); False once the file is not regular (the builder is then done). size_hint: the file's size, if
 *        known; lane: which of n_lanes arenas hold the rows (a lane is used by one thread at a time).
 *   .finish(index) -> None | (tag: bytes, one_tag: bool, counts: bytes)
 *        the file's end; counts: (T + 1,) int64, the lines of topics without qrels, then each topic's lines.
 *        None: not regular (the builder is then done).
 *   .add_run(index, data, lane=0): feed(index, ...) in 256 KB pieces then finish(index), for a file read whole.
 *   .encode(first, end)
 *        hashes the docnos of groups first..end-1 (a group: topic code + 1; group 0 the lines without qrels), after
 *        every run is finished.
 *   .vocabulary(qrels_data, qrels_offsets) -> (list[str], bytes)
 *        after encode() of every group: the sorted vocabulary (byte order, as strcmp) of every docno and the
 *        qrels' (the strings qrels_data[offsets[i]:offsets[i+1]], offsets n + 1 int64), and the (n,) int32 ids of
 *        the qrels' docnos in it.
 *   .outputs(size) -> a writable buffer of size bytes (after vocabulary(); numpy arrays made over it keep it alive)
 *        for place()'s docs and scores: the docnos' pages moved into it where they can be (Outputs, below).
 *   .place(first_run, end_run, width, docs, scores, repeated)
 *        writes runs first_run..end_run-1 into docs (S, T, width) int32, scores (S, T, width) float64 and
 *        repeated (S, T) uint8: each ranking in trec_eval order (score descending, ties by docno descending;
 *        scores compared in single precision with float32_ties, as trec_eval 9.x), cut at width, padded with
 *        -1 / NaN; repeated: the ranking holds a document twice.
 *   .release()  frees the rows.
 *
 *   read_qrels(data) -> None | ((topics: list[bytes], codes, docnos, offsets, grades), strata | None)
 *        a regular qrels file's columns (bytes of int32 codes into topics, as first seen; the docnos end to end and
 *        their n + 1 int64 offsets; int64 grades and strata); None for any other (see read_qrels below).
 *
 * The passes, and why (TREC-8, 129 runs, 6.3 M lines, 0.35 M docnos, 0.85 M (topic, docno) pairs):
 * 1. feed: each file as it is inflated, 256 KB at a time (the piece still in cache): every separator's offset found
 *    64 bytes at a time (AVX-512BW where the processor has it, its offsets packed by one VBMI2 compress where it has
 *    that too, else SSE2: feed 0.236 -> 0.192 -> 0.14 CPU-s for TREC-8; a word at a time off x86-64), then the lines
 *    six offsets at a time; the docnos copied and the scores converted into arenas of 2 MB pages, one per kind of
 *    array and thread; no lookup yet.
 * 2. encode: the docnos hashed topic by topic across all runs, each topic in a table of 8-byte cells that stays in
 *    cache (hashed file by file, the 51 tables missed it on nearly every probe: 1.4 CPU-s against 0.06), its keys in
 *    arenas of 2 MB pages; vocabulary: each topic's distinct docnos, and the qrels', into one table (8-byte cells
 *    too: 8 MB, where 32-byte slots were 32 MB of fresh pages), sorted by a radix sort on their first 16 bytes; the
 *    words written from the sort keys (0.10 -> 0.05 CPU-s).
 * 3. place: per run, each topic's ranking ordered and written, into the docnos' pages (outputs()).
 * Every big array is mapped with 2 MB pages advised (arenas, big_alloc): malloc's 4 KB pages were 30 k page faults
 * a build (12 k now), at 0.41 ms a MB against 0.09 for the same memory in 2 MB pages.
 *
 * Scores are read exactly as strtod reads them: m * 10^e by one correctly rounded operation when m <= 2^53 and
 * |e| <= 22 (Clinger's fast path, exact), with x87 extended precision for 16-19 digit mantissas unless the result
 * lies halfway (zeros printed past a score's digits are not read: TREC-8 has 4 runs of 17 digits and 18 zeros), else
 * by CPython's correctly rounded PyOS_string_to_double.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#define ALWAYS_INLINE __attribute__((always_inline))
#define FIRST_BYTE(mask) ((size_t)__builtin_ctzll(mask) >> 3)
#else
#define PREFETCH(address) ((void)0)
#define ALWAYS_INLINE
#endif

/* The AVX-512 separator finder: x86-64 GCC 5+ or Clang, unless EVALKIT_NO_AVX512 is defined (the tests build the
 * SSE2 finder that way, as every processor without AVX-512BW runs it). */
#if defined(__x86_64__) && defined(__SSE2__) && !defined(EVALKIT_NO_AVX512) \
    && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 5))
#define EVALKIT_AVX512 1
#else
#define EVALKIT_AVX512 0
#endif
/* Its VBMI2 variant (GCC 8+ or Clang 6+), unless EVALKIT_NO_VBMI2 is defined (the tests build the AVX-512BW finder
 * that way). */
#if EVALKIT_AVX512 && !defined(EVALKIT_NO_VBMI2) && (defined(__clang__) ? __clang_major__ >= 6 : __GNUC__ >= 8)
#define EVALKIT_VBMI2 1
#else
#define EVALKIT_VBMI2 0
#endif

/* Word-at-a-time field splitting needs little-endian words and a count of trailing zeros. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORDWISE 1
#else
#define WORDWISE 0
#endif

/* ------------------------------------------------------------------------------------------ growing arrays */

/* Room for ``need`` items: ``cap`` (``first`` when 0) doubled until it holds them. */
static inline size_t capacity_for(size_t cap, size_t need, size_t first)
{
    if (!cap)
        cap = first;
    while (cap < need)
        cap *= 2;
    return cap;
}

/* ``pointer`` reallocated to hold ``count`` of its items; when realloc fails, the enclosing function returns
 * ``failure`` and ``pointer`` is left as it was (realloc frees nothing when it fails). */
#define RESIZE_OR_RETURN(pointer, count, failure)                                  \
    do {                                                                           \
        void *resized_ = realloc((pointer), (size_t)(count) * sizeof(*(pointer))); \
        if (!resized_)                                                             \
            return (failure);                                                      \
        (pointer) = resized_;                                                      \
    } while (0)

/* ------------------------------------------------------------------------------------------- big memory */

/* A build writes about 250 MB of fresh memory for TREC-8 (the rows, the hash tables). Faulted in 4 KB at a time
 * that was 50-60 k page faults a build, 0.1-0.2 CPU-s of kernel time; mapped here and advised to use the kernel's
 * 2 MB pages where it has them (Linux's transparent huge pages), it takes a few hundred. Elsewhere: malloc. */
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((size_t)2 << 20)

typedef struct {
    char *base;    /* HUGE_PAGE-aligned when mapped */
    size_t cap;
    void *map;     /* what to unmap (NULL: base came from malloc) */
    size_t map_len;
} Pages;

static int pages_alloc(Pages *p, size_t size)
{
    memset(p, 0, sizeof(*p));
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    if (size >= HUGE_PAGE / 2) {
        size_t len = (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE + HUGE_PAGE;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m != MAP_FAILED) {
            p->map = m;
            p->map_len = len;
            p->base = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
            p->cap = len - (size_t)(p->base - (char *)m);
#if defined(MADV_HUGEPAGE)
            madvise(p->base, p->cap, MADV_HUGEPAGE);  /* advice: refused or ignored, the pages are 4 KB */
#endif
            return 0;
        }
    }
#endif
    p->base = (char *)malloc(size ? size : 1);
    p->cap = size;
    return p->base ? 0 : -1;
}

static void pages_free(Pages *p)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    if (p->map) {
        munmap(p->map, p->map_len);
        memset(p, 0, sizeof(*p));
        return;
    }
#endif
    free(p->base);
    memset(p, 0, sizeof(*p));
}

/* Big arrays (a table, sort keys; 1 MB or more): mapped with 2 MB pages advised, as the arenas are. malloc's 4 KB
 * pages cost 0.41 ms a MB to fault in, against 0.09 for 2 MB ones, when the memory was just freed (measured here:
 * 100 MB written either way); TREC-8's vocabulary tables and sort keys are some 40 MB. Smaller arrays: malloc.
 * Freed and resized with the size they were made with. */
#define BIG ((size_t)1 << 20)

static size_t big_length(size_t size)
{
    return (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

static void *big_alloc(size_t size)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    if (size >= BIG) {
        size_t len = big_length(size);
        char *m = (char *)mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        char *base = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        if (base > m)
            munmap(m, (size_t)(base - m));
        munmap(base + len, (size_t)(m + len + HUGE_PAGE - (base + len)));  /* the mapping is [base, base + len) */
#if defined(MADV_HUGEPAGE)
        madvise(base, len, MADV_HUGEPAGE);
#endif
        return base;
    }
#endif
    return malloc(size ? size : 1);
}

static void big_free(void *p, size_t size)
{
    if (!p)
        return;
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    if (size >= BIG) {
        munmap(p, big_length(size));
        return;
    }
#endif
    free(p);
}

/* p (made with ``old`` bytes) made ``size`` bytes, its first bytes kept; NULL (p untouched) when there is no memory. */
static void *big_realloc(void *p, size_t old, size_t size)
{
    if (!p)
        return big_alloc(size);
    if (old < BIG && size < BIG)
        return realloc(p, size ? size : 1);
#if defined(__linux__) && defined(MAP_ANONYMOUS) && defined(MREMAP_MAYMOVE)
    if (old >= BIG && size >= BIG) {
        void *q = mremap(p, big_length(old), big_length(size), MREMAP_MAYMOVE);
        return q == MAP_FAILED ? NULL : q;
    }
#endif
    void *q = big_alloc(size);
    if (!q)
        return NULL;
    memcpy(q, p, old < size ? old : size);
    big_free(p, old);
    return q;
}

/* Blocks taken one after another from big slabs: each array a run file's rows grow into is the last block of an
 * arena of its own (one arena per kind of array, per thread), so it grows in place, and is cut to its length when
 * the file is read; the next file's array begins where it ends. */
typedef struct Slab {
    struct Slab *next;  /* the slab filled before this one */
    Pages pages;
    size_t used;
} Slab;

typedef struct {
    Slab *head;    /* the slab blocks are taken from */
    size_t taken;  /* the bytes of its slabs */
} Arena;

#define SLAB_SIZE ((size_t)32 << 20)  /* the largest slab made for small blocks */

static void *arena_take(Arena *a, size_t size)
{
    size = (size + 63) & ~(size_t)63;
    Slab *s = a->head;
    if (!s || s->pages.cap - s->used < size) {
        /* slabs grow with the arena (four blocks' worth, then as much as the arena holds, up to SLAB_SIZE): a
         * small build maps a few small slabs (malloc, below 1 MB) and does not fault in 2 MB pages it leaves empty */
        size_t slab = 4 * size > a->taken ? 4 * size : a->taken;
        slab = slab < SLAB_SIZE ? slab : SLAB_SIZE;
        s = (Slab *)calloc(1, sizeof(Slab));
        if (!s || pages_alloc(&s->pages, size > slab ? size : slab) < 0) {
            free(s);
            return NULL;
        }
        s->next = a->head;
        a->head = s;
        a->taken += s->pages.cap;
    }
    void *block = s->pages.base + s->used;
    s->used += size;
    return block;
}

/* *block (the arena's last block, ``used`` bytes of it in use) made ``size`` bytes: in place when its slab has
 * room, else moved to a new one. */
static int arena_resize(Arena *a, void **block, size_t used, size_t size)
{
    Slab *s = a->head;
    char *b = (char *)*block;
    if (b && s && b >= s->pages.base && b < s->pages.base + s->pages.cap) {
        size_t at = (size_t)(b - s->pages.base), rounded = (size + 63) & ~(size_t)63;
        if (rounded <= s->pages.cap - at) {
            s->used = at + rounded;
            return 0;
        }
    }
    void *moved = arena_take(a, size);
    if (!moved)
        return -1;
    if (b && used)
        memcpy(moved, b, used < size ? used : size);
    *block = moved;
    return 0;
}

static void arena_free(Arena *a)
{
    while (a->head) {
        Slab *next = a->head->next;
        pages_free(&a->head->pages);
        free(a->head);
        a->head = next;
    }
    a->taken = 0;
}

/* The arenas of one thread's run files: their docnos' bytes, offsets and scores. */
enum { DOCNOS, AT, SCORE, KINDS };
typedef struct {
    Arena kind[KINDS];
} Lane;

/* --------------------------------------------------------------------------------------- string interning */

/* A string's key: its first 16 bytes (zero-padded; a docno holds no NUL, so padding cannot make two strings equal),
 * its length and a hash. Strings are compared on the key and, beyond 16 bytes, on their stored bytes. */
typedef struct {
    uint64_t w0, w1, hash;
    uint32_t len;
} Key;

static uint64_t MASK0[17], MASK1[17];  /* the first n bytes of 16, as the two words */

static void init_masks(void)
{
    for (int n = 0; n <= 16; n++) {
        unsigned char bytes[16];
        for (int i = 0; i < 16; i++)
            bytes[i] = i < n ? 0xff : 0;
        memcpy(&MASK0[n], bytes, 8);
        memcpy(&MASK1[n], bytes + 8, 8);
    }
}

static inline uint64_t mix(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

/* The key of s[0:n]; ``limit``: where s's buffer ends (16 bytes are read at once when they lie within it). */
static inline Key make_key(const char *s, size_t n, const char *limit)
{
    Key k;
    size_t m = n < 16 ? n : 16;
    if (s + 16 <= limit) {
        memcpy(&k.w0, s, 8);
        memcpy(&k.w1, s + 8, 8);
        k.w0 &= MASK0[m];
        k.w1 &= MASK1[m];
    } else {
        unsigned char bytes[16] = {0};
        memcpy(bytes, s, m);
        memcpy(&k.w0, bytes, 8);
        memcpy(&k.w1, bytes + 8, 8);
    }
    uint64_t h = (k.w0 * 0x9E3779B97F4A7C15ULL) ^ (k.w1 * 0xbf58476d1ce4e5b9ULL) ^ ((uint64_t)n << 56);
    for (size_t i = 16; i < n; i += 8) {  /* the rest, 8 bytes at a time */
        uint64_t w = 0;
        memcpy(&w, s + i, n - i < 8 ? n - i : 8);
        h = (h ^ w) * 0x94d049bb133111ebULL;
        h ^= h >> 29;
    }
    k.hash = mix(h);
    k.len = (uint32_t)n;
    return k;
}

/* A hash table of 8-byte cells (a tag of the hash, the id), the keys themselves in an array by id (for a topic's
 * docnos in encode(), its group's keys): a topic's table fits a core's L2 cache (TREC-8's largest topic: 512 KB,
 * 64 k cells), where 32-byte slots holding the keys (2 MB) did not: encode() 0.082 -> 0.063 CPU-s. */
typedef struct {
    uint32_t tag;
    int32_t id;  /* -1: empty */
} Cell;

typedef struct {
    Cell *cells;
    size_t mask, count;
} Cells;

static int cells_init(Cells *t, size_t capacity)
{
    size_t cap = 64;
    while (cap < capacity * 2)
        cap <<= 1;
    t->cells = (Cell *)big_alloc(cap * sizeof(Cell));
    if (!t->cells)
        return -1;
    t->mask = cap - 1;
    t->count = 0;
    return 0;
}

static void cells_free(Cells *t)
{
    big_free(t->cells, t->cells ? (t->mask + 1) * sizeof(Cell) : 0);
    t->cells = NULL;
}

static void cells_clear(Cells *t)
{
    memset(t->cells, 0xFF, (t->mask + 1) * sizeof(Cell));  /* id -1 */
    t->count = 0;
}

/* twice the cells, the ids put back by their keys' hashes */
static int cells_grow(Cells *t, const Key *keys, Py_ssize_t n)
{
    size_t cap = (t->mask + 1) * 2;
    Cell *cells = (Cell *)big_alloc(cap * sizeof(Cell));
    if (!cells)
        return -1;
    memset(cells, 0xFF, cap * sizeof(Cell));
    for (Py_ssize_t id = 0; id < n; id++) {
        size_t j = (size_t)keys[id].hash & (cap - 1);
        while (cells[j].id >= 0)
            j = (j + 1) & (cap - 1);
        cells[j].tag = (uint32_t)(keys[id].hash >> 32);
        cells[j].id = (int32_t)id;
    }
    big_free(t->cells, (t->mask + 1) * sizeof(Cell));
    t->cells = cells;
    t->mask = cap - 1;
    return 0;
}

/* Distinct strings (the topics; every docno, the groups' and the qrels'), ids in first-seen order: hashed in 8-byte
 * cells, the keys by id beside them (TREC-8's 0.35 M docnos: 8 MB of cells, where 32-byte slots holding the keys
 * were 32 MB of pages to fault in); only the bytes past 16 are copied (text), the rest is in the key. */
typedef struct {
    Cells cells;
    Key *keys;         /* per id: its key */
    uint64_t *tail_at;  /* per id, when it is longer than 16 bytes: where its bytes past 16 are in ``text`` */
    char *text;
    size_t text_len, text_cap;
    size_t count, cap;
} Strings;

static int strings_init(Strings *v, size_t capacity)
{
    memset(v, 0, sizeof(*v));
    if (cells_init(&v->cells, capacity) < 0)
        return -1;
    cells_clear(&v->cells);
    if (capacity == 0)
        capacity = 1;
    v->keys = (Key *)big_alloc(capacity * sizeof(Key));  /* faulted in as it is filled */
    v->tail_at = (uint64_t *)big_alloc(capacity * sizeof(uint64_t));
    v->cap = capacity;
    return v->keys && v->tail_at ? 0 : -1;
}

static void strings_free(Strings *v)
{
    cells_free(&v->cells);
    big_free(v->keys, v->cap * sizeof(Key));
    big_free(v->tail_at, v->cap * sizeof(uint64_t));
    free(v->text);
    memset(v, 0, sizeof(*v));
}

/* The cell holding s[0:n]'s id (key k), or the empty cell where it would go. */
static inline Cell *strings_probe(const Strings *v, const Key *k, const char *s)
{
    uint32_t tag = (uint32_t)(k->hash >> 32);
    for (size_t c = (size_t)k->hash & v->cells.mask;; c = (c + 1) & v->cells.mask) {
        Cell *cell = &v->cells.cells[c];
        if (cell->id < 0)
            return cell;
        if (cell->tag != tag)
            continue;
        const Key *known = &v->keys[cell->id];
        if (known->hash == k->hash && known->len == k->len && known->w0 == k->w0 && known->w1 == k->w1
                && (k->len <= 16 || memcmp(v->text + v->tail_at[cell->id], s + 16, k->len - 16) == 0))
            return cell;
    }
}

/* The id of s[0:n] (key k), added (next id) when new. -1: out of memory, or too many strings. */
static int64_t strings_intern(Strings *v, const Key *k, const char *s)
{
    Cell *cell = strings_probe(v, k, s);
    if (cell->id >= 0)
        return cell->id;
    uint32_t tag = (uint32_t)(k->hash >> 32);
    if (v->count >= INT32_MAX - 1)
        return -1;
    if (v->count == v->cap) {
        size_t cap = capacity_for(v->cap, v->count + 1, 4096);
        Key *keys = (Key *)big_realloc(v->keys, v->cap * sizeof(Key), cap * sizeof(Key));
        if (!keys)
            return -1;
        v->keys = keys;
        uint64_t *tail_at = (uint64_t *)big_realloc(v->tail_at, v->cap * sizeof(uint64_t), cap * sizeof(uint64_t));
        if (!tail_at) {  /* keys is already ``cap`` long: shrink it back, so both are as ``v->cap`` says */
            Key *back = (Key *)big_realloc(v->keys, cap * sizeof(Key), v->cap * sizeof(Key));
            if (back)
                v->keys = back;
            return -1;
        }
        v->tail_at = tail_at;
        v->cap = cap;
    }
    int32_t id = (int32_t)v->count++;
    if (k->len > 16) {
        size_t n = k->len - 16;
        if (v->text_len + n > v->text_cap) {
            size_t cap = capacity_for(v->text_cap, v->text_len + n, 65536);
            RESIZE_OR_RETURN(v->text, cap, -1);
            v->text_cap = cap;
        }
        memcpy(v->text + v->text_len, s + 16, n);
        v->tail_at[id] = v->text_len;
        v->text_len += n;
    }
    v->keys[id] = *k;
    cell->tag = tag;
    cell->id = id;
    if (++v->cells.count * 2 > v->cells.mask + 1 && cells_grow(&v->cells, v->keys, (Py_ssize_t)v->count) < 0)
        return -1;
    return id;
}

/* The id of s[0:n], or -1 when absent. ``limit``: where s's buffer ends. */
static int64_t strings_find(const Strings *v, const char *s, size_t n, const char *limit)
{
    Key k = make_key(s, n, limit);
    return strings_probe(v, &k, s)->id;
}

/* ----------------------------------------------------------------------------------------------- scores */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#include <float.h>

/* m * 10^e (m < 2^64) exactly rounded to a double, when that can be done without strtod: with a 64-bit mantissa
 * (x87's long double), m and 10^e (e <= 27) are exact and their product or quotient is rounded once to 64 bits; the
 * second rounding, to 53 bits, then gives the correctly rounded double unless the 64-bit result lies exactly halfway
 * between two doubles (its low 11 bits 0x400: the exact value may lie on either side), or the result is not a
 * normal double. 0: not done (strtod's job). TREC runs printing 17 digits (TREC-8: 4 runs) need this. */
static int extended_decimal(uint64_t m, int64_t e, int negative, double *value)
{
#if LDBL_MANT_DIG == 64
    static const long double P[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                      1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                      1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    if (e > 27 || e < -27)
        return 0;
    long double v = e >= 0 ? (long double)m * P[e] : (long double)m / P[-e];
    uint64_t bits;                                               /* the 64-bit mantissa, exactly */
#if defined(__x86_64__) || defined(__i386__)
    memcpy(&bits, &v, sizeof(bits));  /* x87's format: the mantissa (integer bit included) is its first 8 bytes; the
                                        * frexpl and ldexpl calls this replaces took 16 of a long score's 83 ns */
#else
    int exponent2;
    long double fraction = frexpl(v, &exponent2);               /* v = fraction * 2^exponent2, fraction in [0.5, 1) */
    bits = (uint64_t)ldexpl(fraction, 64);
#endif
    if ((bits & 0x7FF) == 0x400)
        return 0;
    double d = (double)v;
    if (!isnormal(d))
        return 0;
    *value = negative ? -d : d;
    return 1;
#else
    (void)m;
    (void)e;
    (void)negative;
    (void)value;
    return 0;
#endif
}

/* The common score, s[0:n] (n <= 19) wholly [+-]? then digits with at most one point, no exponent (nearly every
 * TREC-8 score): every digit fits the 64-bit mantissa, so none needs the general path's bookkeeping. As read_decimal
 * (1: read; 2: the syntax holds, strtod's job), or -1: not such a score. */
static inline int common_decimal(const unsigned char *s, size_t n, double *value)
{
    const unsigned char *q = s, *stop = s + n;
    int minus = 0;
    if (q < stop && (*q == '-' || *q == '+')) {
        minus = *q == '-';
        q++;
    }
    const unsigned char *digits_from = q, *point = NULL;
    uint64_t m = 0;
    for (; q < stop; q++) {
        unsigned d = (unsigned)*q - '0';
        if (d < 10) {
            m = m * 10 + d;
        } else if (*q == '.' && !point) {
            point = q;
        } else {
            break;
        }
    }
    Py_ssize_t n_digits = (stop - digits_from) - (point != NULL);
    if (q != stop || n_digits <= 0)
        return -1;
    int64_t e = point ? -(int64_t)(stop - point - 1) : 0;
    if (m <= (1ULL << 53)) {  /* Clinger's fast path: m and 10^-e exact, one rounding */
        double v = (double)m;
        v = e >= 0 ? v : v / POW10[-e];
        *value = minus ? -v : v;
        return 1;
    }
    return extended_decimal(m, e, minus, value) ? 1 : 2;  /* 17-19 digits: as the general path would */
}

/* Reads s[0:n] when it is wholly [+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)? :
 * returns 1 and the value (exact) when Clinger's fast path applies, 2 when the syntax holds but the value needs a
 * correctly rounded conversion (done later, with the GIL), 0 when it is not such a number. */
static inline int read_decimal(const unsigned char *s, size_t n, double *value)
{
    if (n <= 19) {
        int how = common_decimal(s, n, value);
        if (how >= 0)
            return how;
    } else {  /* a score printed with zeros past its digits (TREC-8: 4 runs, 17 digits and 18-19 zeros): read without
               * them, as a common score, when they follow its point */
        size_t kept = n;
        while (kept > 0 && s[kept - 1] == '0')
            kept--;
        if (kept <= 19 && memchr(s, '.', kept)) {
            int how = common_decimal(s, kept, value);
            if (how >= 0)
                return how;
        }
    }
    const unsigned char *p = s, *end = s + n;
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = (*p == '-');
        p++;
    }
    uint64_t mantissa = 0;
    int digits = 0;       /* significant digits taken into the mantissa */
    int dropped = 0;      /* a nonzero digit did not fit */
    int64_t scale = 0;    /* decimal exponent of the mantissa's last digit */
    int n_digits = 0, point = 0;
    for (; p < end; p++) {  /* the digits, before and after one point */
        unsigned d = (unsigned)*p - '0';
        if (d > 9) {
            if (*p == '.' && !point) {
                point = 1;
                continue;
            }
            break;
        }
        if (digits < 19) {
            if (mantissa || d) {
                mantissa = mantissa * 10 + d;
                digits++;
            }
            scale -= point;  /* a fraction digit kept: one place further right */
        } else {
            scale += !point;  /* an integer digit dropped: one place further left */
            if (d)
                dropped = 1;
        }
        n_digits++;
    }
    if (n_digits == 0)
        return 0;
    int64_t exponent = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int exp_negative = 0;
        if (p < end && (*p == '+' || *p == '-')) {
            exp_negative = (*p == '-');
            p++;
        }
        if (p == end)
            return 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (exponent < 100000000)
                exponent = exponent * 10 + (*p - '0');
            p++;
        }
        if (exp_negative)
            exponent = -exponent;
    }
    if (p != end)
        return 0;
    if (mantissa == 0 && !dropped) {
        *value = negative ? -0.0 : 0.0;
        return 1;
    }
    int64_t e = exponent + scale;
    if (dropped)
        return 2;
    if (mantissa > (1ULL << 53) || e > 22 || e < -22)
        return extended_decimal(mantissa, e, negative, value) ? 1 : 2;
    double v = (double)mantissa;
    v = e >= 0 ? v * POW10[e] : v / POW10[-e];
    *value = negative ? -v : v;
    return 1;
}

/* -------------------------------------------------------------------------------------------------- runs */

/* Consecutive lines of one topic, in file order; docnos_end: where their docnos end in the file's ``docnos`` (each
 * docno's length is the next one's offset minus its own: no array of lengths is kept, 12.6 MB for TREC-8). */
typedef struct {
    Py_ssize_t start, end;
    size_t docnos_end;
    int32_t topic;
} Block;

/* One run file's rows. The three arrays of rows are blocks of the arenas of the lane (thread) that read the file,
 * freed with them. */
typedef struct {
    Lane *lane;
    char *docnos;      /* the docnos' bytes end to end (then 16 zero bytes), until vocabulary(): the file's text is
                          let go as it is read (keeping every file until the docnos are hashed faulted in 266 MB of
                          fresh pages for TREC-8: 0.17 CPU-s) */
    size_t docnos_len, docnos_cap;
    uint32_t *at;      /* the docno's offset in ``docnos`` (its end: the next row's offset, or its block's
                          docnos_end); after encode(), its id among its topic's docnos */
    double *score;
    Py_ssize_t n, cap;
    int64_t *counts;   /* (T + 1,): lines without qrels, then per topic */
    Block *blocks;
    Py_ssize_t n_blocks, blocks_cap;
    struct Reading *reading;  /* between the first feed() and finish(): what reading the file keeps */
} RunRows;

static void reading_free(struct Reading *st);

static void rows_free(RunRows *r)  /* the arrays of rows stay in their arenas until release() */
{
    free(r->counts);
    free(r->blocks);
    reading_free(r->reading);
    memset(r, 0, sizeof(*r));
}

static int rows_resize(RunRows *r, Py_ssize_t cap);

static int rows_reserve(RunRows *r, Py_ssize_t need)
{
    if (need <= r->cap)
        return 0;
    Py_ssize_t cap = (Py_ssize_t)capacity_for((size_t)r->cap, (size_t)need, 4096);
    return rows_resize(r, cap);
}

/* The rows' arrays made ``cap`` rows long (cut, at a file's end, or grown). */
static int rows_resize(RunRows *r, Py_ssize_t cap)
{
    if (arena_resize(&r->lane->kind[AT], (void **)&r->at, r->n * sizeof(*r->at), cap * sizeof(*r->at)) < 0
            || arena_resize(&r->lane->kind[SCORE], (void **)&r->score, r->n * sizeof(*r->score),
                            cap * sizeof(*r->score)) < 0)
        return -1;
    r->cap = cap;
    return 0;
}

/* Room for ``need`` bytes of docnos (cut, at a file's end, or grown). */
static int docnos_resize(RunRows *r, size_t cap)
{
    if (arena_resize(&r->lane->kind[DOCNOS], (void **)&r->docnos, r->docnos_len, cap) < 0)
        return -1;
    r->docnos_cap = cap;
    return 0;
}

static int rows_new_block(RunRows *r, Py_ssize_t start, int32_t topic)
{
    if (r->n_blocks == r->blocks_cap) {
        Py_ssize_t cap = (Py_ssize_t)capacity_for((size_t)r->blocks_cap, (size_t)r->n_blocks + 1, 64);
        RESIZE_OR_RETURN(r->blocks, cap, -1);
        r->blocks_cap = cap;
    }
    if (r->n_blocks) {
        r->blocks[r->n_blocks - 1].end = start;
        r->blocks[r->n_blocks - 1].docnos_end = r->docnos_len;  /* called before the row's docno is kept */
    }
    r->blocks[r->n_blocks].start = start;
    r->blocks[r->n_blocks].topic = topic;
    r->n_blocks++;
    return 0;
}

/* One topic's docnos across all runs: the table, each docno's first occurrence, then each one's vocabulary id. */
typedef struct {
    Key *keys;        /* per id: its key (a block of the arenas of the encode() call that hashed the group) */
    uint64_t *first;  /* per id: the address of its first occurrence (likewise) */
    int32_t *final;   /* per id: its position in the sorted vocabulary */
    Py_ssize_t n, cap;
    int encoded;      /* encode() has hashed its rows */
    Arena arenas[2];  /* the first group of an encode() call's range: the range's keys and first occurrences, each
                       * group's the last block while it is hashed, then cut to its ids (TREC-8: 34 MB, in 2 MB
                       * pages where malloc's 4 KB ones were a quarter of a build's page faults) */
} Group;

/* The group's ids, keys and first occurrences dropped (their arenas are its range's, freed with its first group). */
static void group_forget_keys(Group *g)
{
    g->keys = NULL;
    g->first = NULL;
    g->cap = 0;
}

static void group_free(Group *g)
{
    free(g->final);
    arena_free(&g->arenas[0]);
    arena_free(&g->arenas[1]);
    memset(g, 0, sizeof(*g));
}

/* Room for ``cap`` ids in the group's key and first-occurrence arrays, the last blocks of ``arenas`` (-1: out of
 * memory). */
static int group_reserve(Group *g, Arena *arenas, Py_ssize_t cap)
{
    if (cap <= g->cap)
        return 0;
    void *keys = g->keys, *first = g->first;
    if (arena_resize(&arenas[0], &keys, (size_t)g->n * sizeof(Key), (size_t)cap * sizeof(Key)) < 0)
        return -1;
    g->keys = (Key *)keys;
    if (arena_resize(&arenas[1], &first, (size_t)g->n * sizeof(uint64_t), (size_t)cap * sizeof(uint64_t)) < 0)
        return -1;
    g->first = (uint64_t *)first;
    g->cap = cap;
    return 0;
}

typedef struct {
    Py_ssize_t row;
    size_t at, len;  /* the score's text: Reading.deferred_text[at:at + len] */
} Deferred;

typedef struct {
    PyObject_HEAD
    Strings topics;
    Py_ssize_t n_topics;
    int float32_ties;
    int spoiled;     /* a run was refused or memory ran out: the build falls back, this builder is done */
    int encoded;     /* vocabulary() has run */
    RunRows *runs;   /* (n_runs,), each filled by feed(index, ...) */
    Py_ssize_t n_runs;
    Lane *lanes;     /* (n_lanes,): the memory of the rows of the files each thread reads */
    Py_ssize_t n_lanes;
    Group *groups;   /* (T + 1,): per topic code + 1 */
} Builder;

enum { PARSED = 0, IRREGULAR = 1, NO_MEMORY = 2 };

/* The first delimiter or \n at or after p (end when none); *bad is set when a byte before it is one no regular
 * file holds: NUL, \v, \f, \r, the blank that is not the delimiter (``other``), or a byte past ASCII. Word at a time: the flags of a word are exact up to its first flagged byte (a borrow only flags bytes
 * above a flagged one), and only the bytes below the field's end are judged. */
static inline const unsigned char *field_end(const unsigned char *p, const unsigned char *end, unsigned char delim,
                                             unsigned char other, int *bad)
{
#if WORDWISE
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    const uint64_t delims = ones * delim, newlines = ones * '\n', others = ones * other;
    while (p + 8 <= end) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t a = w ^ delims, b = w ^ newlines, c = w ^ others, v = w ^ (ones * '\v'), f = w ^ (ones * '\f');
        uint64_t r = w ^ (ones * '\r');
        uint64_t found = ((a - ones) & ~a & highs) | ((b - ones) & ~b & highs);
        uint64_t wrong = ((w - ones) & ~w & highs) | (w & highs) | ((c - ones) & ~c & highs)
                         | ((v - ones) & ~v & highs) | ((f - ones) & ~f & highs) | ((r - ones) & ~r & highs);
        if (found) {
            size_t k = FIRST_BYTE(found);
            if (k && (wrong & (highs >> (8 * (8 - k)))))
                *bad = 1;
            return p + k;
        }
        if (wrong)
            *bad = 1;
        p += 8;
    }
#endif
    while (p < end && *p != delim && *p != '\n') {
        if (*p == 0 || *p == '\v' || *p == '\f' || *p == '\r' || *p >= 0x80 || *p == other)
            *bad = 1;
        p++;
    }
    return p;
}

/* A copy of a field the reader compares later lines with (the topic, the tag), padded so 8 bytes can be read. */
typedef struct {
    unsigned char *bytes;
    size_t len, cap;
} Copy;

/* p[0:n] put after the copy's bytes, 8 zero bytes kept past them. -1: out of memory. */
static int copy_append(Copy *c, const unsigned char *p, size_t n)
{
    if (c->len + n + 8 > c->cap) {
        size_t cap = capacity_for(c->cap, c->len + n + 8, 64);
        RESIZE_OR_RETURN(c->bytes, cap, -1);
        c->cap = cap;
    }
    memcpy(c->bytes + c->len, p, n);
    c->len += n;
    memset(c->bytes + c->len, 0, 8);
    return 0;
}

static int copy_set(Copy *c, const unsigned char *p, size_t n)
{
    c->len = 0;
    return copy_append(c, p, n);
}

/* p[0:n] (inside [.., end)) equals the copy */
static inline int same_as_copy(const unsigned char *p, size_t n, const Copy *c, const unsigned char *end)
{
    if (n != c->len)
        return 0;
#if WORDWISE
    if (n <= 8 && p + 8 <= end) {
        uint64_t x, y;
        memcpy(&x, p, 8);
        memcpy(&y, c->bytes, 8);
        return ((x ^ y) & MASK0[n]) == 0;
    }
#endif
    return memcmp(p, c->bytes, n) == 0;
}

/* The line at *at: exactly ``W`` (at most 6) nonempty fields, f[j] of n[j] bytes, one ``delim`` between them, ended
 * by \n or the end of the data; *at then just past it. 0 when it is not such a line, or holds a byte no regular file
 * holds (field_end). The portable run reader's lines (6 fields) and the qrels reader's (4 or 5). */
static inline int line_fields(const unsigned char **at, const unsigned char *end, unsigned char delim,
                              unsigned char other, int W, const unsigned char **f, size_t *n)
{
    const unsigned char *p = *at;
    int bad = 0;
    for (int j = 0; j < W; j++) {
        f[j] = p;
        p = field_end(p, end, delim, other, &bad);
        n[j] = (size_t)(p - f[j]);
        if (n[j] == 0)
            return 0;
        if (j < W - 1) {
            if (p == end || *p != delim)
                return 0;
            p++;
        }
    }
    if (p < end) {
        if (*p != '\n')
            return 0;  /* one field more */
        p++;
    }
    *at = p;
    return !bad;
}

/* What reading one file keeps between its lines, and between the pieces of it that feed() is given (a file comes
 * in pieces as it is decompressed, so the text read at a time stays in cache and no buffer of the whole file is
 * made: decompressing each file whole faulted in 266 MB of fresh pages for TREC-8, and copied them once more). */
typedef struct Reading {
    Builder *b;
    RunRows *r;
    const unsigned char *data, *end;  /* the span being read: whole lines, the last one ended by \n unless final */
    int started;                      /* the file's first bytes were seen (and a byte-order mark dropped) */
    int delim, other;                 /* the delimiter and the other blank; -1 until the first line is read */
    Copy carry;                       /* the piece's last line, not yet ended: read once its \n comes */
    Copy topic;                       /* the last line's topic */
    int has_topic;
    int32_t last_code;
    Copy tag;
    int has_tag;
    int one_tag;
    Deferred *deferred;
    Py_ssize_t n_deferred, deferred_cap;
    char *deferred_text;
    size_t deferred_len, deferred_cap_text;
    uint32_t *marks;                  /* the separators' offsets in the span (split_lines) */
    size_t marks_cap;
} Reading;

static void reading_free(Reading *st)
{
    if (!st)
        return;
    free(st->carry.bytes);
    free(st->topic.bytes);
    free(st->tag.bytes);
    free(st->deferred);
    free(st->deferred_text);
    free(st->marks);
    free(st);
}

/* One line's fields kept: topic (f0), docno (f2), score (f4), tag (f5). */
static inline ALWAYS_INLINE int take_line(Reading *st, const unsigned char *f0, size_t n0, const unsigned char *f2,
                                          size_t n2, const unsigned char *f4, size_t n4, const unsigned char *f5,
                                          size_t n5)
{
    RunRows *r = st->r;
    Py_ssize_t row = r->n;
    if (*f0 == '#')
        return IRREGULAR;
    if (row == r->cap && rows_reserve(r, row + 1) < 0)
        return NO_MEMORY;
    /* the topic: looked up when it changes, and a new block begins */
    if (!(st->has_topic && same_as_copy(f0, n0, &st->topic, st->end))) {
        st->last_code = (int32_t)strings_find(&st->b->topics, (const char *)f0, n0, (const char *)st->end);
        if (copy_set(&st->topic, f0, n0) < 0 || rows_new_block(r, row, st->last_code) < 0)
            return NO_MEMORY;
        st->has_topic = 1;
    }
    r->counts[st->last_code + 1]++;
    /* the docno: copied, to be looked up topic by topic in encode() */
    if (r->docnos_len + n2 + 16 > r->docnos_cap
            && docnos_resize(r, capacity_for(r->docnos_cap, r->docnos_len + n2 + 16, 65536)) < 0)
        return NO_MEMORY;
    if (r->docnos_len >= UINT32_MAX - n2)
        return IRREGULAR;  /* docno offsets are 32-bit: a run of 4 GB of docnos is built in Python */
    char *into = r->docnos + r->docnos_len;
    if (n2 <= 16 && f2 + 16 <= st->end) {  /* 16 bytes at once: the ones past the docno are written over next */
        memcpy(into, f2, 16);
    } else {
        memcpy(into, f2, n2);
    }
    r->at[row] = (uint32_t)r->docnos_len;
    r->docnos_len += n2;
    /* the score */
    double value = 0.0;
    int how = read_decimal(f4, n4, &value);
    if (how == 0)
        return IRREGULAR;
    if (how == 2) {
        if (st->n_deferred == st->deferred_cap) {
            Py_ssize_t cap = (Py_ssize_t)capacity_for((size_t)st->deferred_cap, (size_t)st->n_deferred + 1, 64);
            RESIZE_OR_RETURN(st->deferred, cap, NO_MEMORY);
            st->deferred_cap = cap;
        }
        if (st->deferred_len + n4 > st->deferred_cap_text) {
            size_t cap = capacity_for(st->deferred_cap_text, st->deferred_len + n4, 1024);
            RESIZE_OR_RETURN(st->deferred_text, cap, NO_MEMORY);
            st->deferred_cap_text = cap;
        }
        memcpy(st->deferred_text + st->deferred_len, f4, n4);
        st->deferred[st->n_deferred].row = row;
        st->deferred[st->n_deferred].at = st->deferred_len;
        st->deferred[st->n_deferred].len = n4;
        st->deferred_len += n4;
        st->n_deferred++;
    }
    r->score[row] = value;
    /* the tag */
    if (!st->has_tag) {
        if (copy_set(&st->tag, f5, n5) < 0)
            return NO_MEMORY;
        st->has_tag = 1;
    } else if (st->one_tag && !same_as_copy(f5, n5, &st->tag, st->end)) {
        st->one_tag = 0;
    }
    r->n = row + 1;
    return PARSED;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* The separators (delimiter or \n) of the 64 bytes at p, as bits, and whether any of them is a byte no regular file
 * holds: NUL, \v, \f, \r, the other blank, or past ASCII. (Other control bytes are text, to trec_eval and to the
 * pure-Python build alike: C isspace is only the six blanks.) */
static inline uint64_t separators(const unsigned char *p, unsigned char delim, unsigned char other, uint64_t *bad)
{
    const __m128i d = _mm_set1_epi8((char)delim), n = _mm_set1_epi8('\n'), o = _mm_set1_epi8((char)other);
    const __m128i nul = _mm_setzero_si128(), vt = _mm_set1_epi8('\v'), ff = _mm_set1_epi8('\f');
    const __m128i cr = _mm_set1_epi8('\r');
    uint64_t found = 0, wrong = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        uint64_t sep = (uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, d), _mm_cmpeq_epi8(x, n)));
        __m128i blank = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, vt), _mm_cmpeq_epi8(x, ff)),
                                     _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, o)));
        __m128i no = _mm_or_si128(_mm_or_si128(blank, _mm_cmpeq_epi8(x, nul)), _mm_cmplt_epi8(x, nul));
        found |= sep << (16 * k);
        wrong |= (uint64_t)(uint32_t)_mm_movemask_epi8(no) << (16 * k);  /* signed below 0: past ASCII */
    }
    *bad = wrong;
    return found;
}

/* the bits set in x (without the popcnt instruction, which the generic x86-64 target lacks: the compiler's
 * __builtin_popcount is then a call) */
static inline uint32_t bits_set(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (uint32_t)((x * 0x0101010101010101ULL) >> 56);
}

/* The line from ``start`` whose separators are at p[0..5] (p[5]: its \n, or the end of the span) has six nonempty
 * fields, the first five ended by the delimiter. */
static inline int six_fields(const unsigned char *data, const uint32_t *p, size_t start, unsigned char delim)
{
    return p[0] != start && p[1] != p[0] + 1 && p[2] != p[1] + 1 && p[3] != p[2] + 1 && p[4] != p[3] + 1
           && p[5] != p[4] + 1 && data[p[0]] == delim && data[p[1]] == delim && data[p[2]] == delim
           && data[p[3]] == delim && data[p[4]] == delim;
}

/* take_line on that line's topic, docno, score and tag */
static inline int take_fields(Reading *st, const unsigned char *data, const uint32_t *p, size_t start)
{
    return take_line(st, data + start, p[0] - start, data + p[1] + 1, p[2] - p[1] - 1, data + p[3] + 1,
                     p[4] - p[3] - 1, data + p[4] + 1, p[5] - p[4] - 1);
}

/* The offsets (from ``at``) of the ``found`` bits of ``sep`` (``n_low`` of them in its low half) written to
 * into[0:found]: each half of the block on its own (two short chains of dependent steps, not one long one), eight
 * offsets each written unconditionally (marks has 64 entries to spare; the low half's extra ones are written over by
 * the high half's). */
static inline ALWAYS_INLINE void write_offsets(uint32_t *into, uint64_t sep, size_t n_low, size_t found, uint32_t at)
{
    uint32_t low = (uint32_t)sep, high = (uint32_t)(sep >> 32);
    uint32_t *into_high = into + n_low;
    for (int i = 0; i < 8; i++) {
        into[i] = at + (uint32_t)__builtin_ctz(low | 0x80000000u);
        low &= low - 1;
    }
    if (n_low > 8)  /* more than eight separators in 32 bytes: short fields */
        for (size_t i = 8; i < n_low; i++) {
            into[i] = at + (uint32_t)__builtin_ctz(low);
            low &= low - 1;
        }
    for (int i = 0; i < 8; i++) {
        into_high[i] = at + 32 + (uint32_t)__builtin_ctz(high | 0x80000000u);
        high &= high - 1;
    }
    if (found - n_low > 8)
        for (size_t i = 8; i < found - n_low; i++) {
            into_high[i] = at + 32 + (uint32_t)__builtin_ctz(high);
            high &= high - 1;
        }
}

/* Every separator's offset in data[0:size] into marks (*count of them), 64 bytes of text at a time, 16 offsets
 * written whether or not the block has them (so the loop does not branch on how many it has); IRREGULAR on a byte no
 * regular file holds, or on more than ``most`` separators. */
static int find_separators_sse2(const unsigned char *data, size_t size, unsigned char delim, unsigned char other,
                                uint32_t *marks, size_t most, size_t *count)
{
    size_t k = 0;
    for (size_t base = 0; base < size; base += 64) {
        uint64_t bad, sep;
        if (base + 64 <= size) {
            sep = separators(data + base, delim, other, &bad);
        } else {  /* the last bytes, padded with a byte that is neither a separator nor wrong */
            unsigned char tail[64];
            memset(tail, 'x', sizeof(tail));
            memcpy(tail, data + base, size - base);
            sep = separators(tail, delim, other, &bad);
        }
        if (bad)
            return IRREGULAR;
        size_t found = bits_set(sep);
        if (k + found > most)
            return IRREGULAR;  /* more separators than six nonempty fields a line allow */
        write_offsets(marks + k, sep, bits_set((uint32_t)sep), found, (uint32_t)base);
        k += found;
    }
    *count = k;
    return PARSED;
}

#if EVALKIT_AVX512
#include <immintrin.h>

/* separators() with AVX-512BW, for the 64 bytes at data + base of data[0:size] (the file's last bytes read by a
 * masked load): the bytes compared at once into bit masks. */
__attribute__((target("avx512f,avx512bw")))
static inline uint64_t separators_avx512(const unsigned char *data, size_t size, size_t base, unsigned char delim,
                                         unsigned char other, uint64_t *bad)
{
    uint64_t valid = size - base >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (size - base)) - 1);
    __m512i x = _mm512_maskz_loadu_epi8(valid, data + base);
    /* NUL, \v \f \r (11-13), the other blank, past ASCII (the sign bit) */
    *bad = (_mm512_cmpeq_epi8_mask(x, _mm512_setzero_si512())
            | _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8('\v')), _mm512_set1_epi8(3))
            | _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8((char)other)) | _mm512_movepi8_mask(x)) & valid;
    return (_mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8((char)delim))
            | _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\n'))) & valid;
}

/* The separators of the block at data + base as bits (*sep), and how many (the popcnt instruction); -1 when the
 * block holds a byte no regular file holds, or the ``k`` separators before it and its own are more than ``most``. */
__attribute__((target("avx512f,avx512bw,popcnt")))
static inline ptrdiff_t block_avx512(const unsigned char *data, size_t size, size_t base, unsigned char delim,
                                     unsigned char other, size_t k, size_t most, uint64_t *sep)
{
    uint64_t bad;
    *sep = separators_avx512(data, size, base, delim, other, &bad);
    size_t found = (size_t)__builtin_popcountll(*sep);
    return bad || k + found > most ? -1 : (ptrdiff_t)found;  /* more separators than six nonempty fields allow */
}

/* find_separators_sse2 with AVX-512BW (chosen at import when the processor has it). */
__attribute__((target("avx512f,avx512bw,popcnt,bmi")))
static int find_separators_avx512(const unsigned char *data, size_t size, unsigned char delim, unsigned char other,
                                  uint32_t *marks, size_t most, size_t *count)
{
    size_t k = 0;
    for (size_t base = 0; base < size; base += 64) {
        uint64_t sep;
        ptrdiff_t found = block_avx512(data, size, base, delim, other, k, most, &sep);
        if (found < 0)
            return IRREGULAR;
        write_offsets(marks + k, sep, (size_t)__builtin_popcount((uint32_t)sep), (size_t)found, (uint32_t)base);
        k += (size_t)found;
    }
    *count = k;
    return PARSED;
}

#if EVALKIT_VBMI2
/* find_separators_avx512 with AVX-512 VBMI2 (chosen at import when the processor has it): the separators' places in
 * the block packed by one byte compress, widened to offsets 16 at a time (a 64-byte block of a run file holds 10-11
 * of them), where the other finders take them from the mask one bit at a time. */
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt,bmi")))
static int find_separators_vbmi2(const unsigned char *data, size_t size, unsigned char delim, unsigned char other,
                                 uint32_t *marks, size_t most, size_t *count)
{
    const __m512i places = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46,
                                           45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28,
                                           27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10,
                                           9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    size_t k = 0;
    for (size_t base = 0; base < size; base += 64) {
        uint64_t sep;
        ptrdiff_t found = block_avx512(data, size, base, delim, other, k, most, &sep);
        if (found < 0)
            return IRREGULAR;
        __m512i packed = _mm512_maskz_compress_epi8(sep, places), at = _mm512_set1_epi32((int)base);
        /* 16 offsets written whether or not the block has them (marks has 64 entries to spare) */
        _mm512_storeu_si512(marks + k, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(packed)), at));
        if (found > 16)  /* short fields: the next 16 places, and so on */
            _mm512_storeu_si512(marks + k + 16,
                                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(packed, 1)), at));
        if (found > 32)
            _mm512_storeu_si512(marks + k + 32,
                                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(packed, 2)), at));
        if (found > 48)
            _mm512_storeu_si512(marks + k + 48,
                                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(packed, 3)), at));
        k += (size_t)found;
    }
    *count = k;
    return PARSED;
}
#endif
#endif

typedef int (*SeparatorFinder)(const unsigned char *, size_t, unsigned char, unsigned char, uint32_t *, size_t,
                               size_t *);
static SeparatorFinder find_separators = find_separators_sse2;
static const char *finder_name = "sse2";

/* The widest variant this processor runs (EVALKIT_AVX512: compiled in; the processor asked at import). */
static void choose_separator_finder(void)
{
#if EVALKIT_AVX512
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("popcnt"))
    {
        find_separators = find_separators_avx512;
        finder_name = "avx512";
#if EVALKIT_VBMI2
        if (__builtin_cpu_supports("avx512vbmi2")) {
            find_separators = find_separators_vbmi2;
            finder_name = "avx512vbmi2";
        }
#endif
    }
#endif
}

/* The lines, in two passes over the span: first every separator's offset (delimiter or \n), found 64 bytes at a
 * time (find_separators); then the lines taken six offsets at a time (fields 0-4 ended by the delimiter, field 5 by
 * \n or the end of the file), each line's checks alike. Taken bit by bit in one pass, the loop's exit on each block
 * was a branch mispredicted about once a block. */
static int split_lines(Reading *st)
{
    const unsigned char delim = (unsigned char)st->delim, other = (unsigned char)st->other;
    const unsigned char *data = st->data;
    size_t size = (size_t)(st->end - data);
    if (size >= ((size_t)1 << 31))
        return IRREGULAR;  /* a line of 2 GB: not a run file this reader takes */
    /* a regular line of six fields of at least one byte has six separators in at least 11 bytes (12 with its \n) */
    size_t most = size / 2 + 1, need = most + 64;
    if (need > st->marks_cap) {
        size_t cap = capacity_for(st->marks_cap, need, 4096);
        RESIZE_OR_RETURN(st->marks, cap, NO_MEMORY);
        st->marks_cap = cap;
    }
    uint32_t *marks = st->marks;
    size_t k = 0;
    if (find_separators(data, size, delim, other, marks, most, &k) != PARSED)
        return IRREGULAR;
    size_t start = 0, m = 0;
    for (; m + 6 <= k; m += 6) {
        const uint32_t *p = marks + m;
        if (!six_fields(data, p, start, delim) || data[p[5]] != '\n')
            return IRREGULAR;  /* an empty field, a blank line, or fewer or more than six fields */
        int status = take_fields(st, data, p, start);
        if (status != PARSED)
            return status;
        start = (size_t)p[5] + 1;
    }
    if (m == k)
        return start == size ? PARSED : IRREGULAR;
    if (k - m != 5)
        return IRREGULAR;
    marks[m + 5] = (uint32_t)size;  /* the last line, without its \n, ends with the span (marks has room) */
    if (!six_fields(data, marks + m, start, delim))
        return IRREGULAR;
    return take_fields(st, data, marks + m, start);
}

#else

static const char *finder_name = WORDWISE ? "word" : "byte";
static void choose_separator_finder(void) {}

/* The lines, field by field (field_end). */
static int split_lines(Reading *st)
{
    const unsigned char delim = (unsigned char)st->delim, other = (unsigned char)st->other;
    const unsigned char *p = st->data, *end = st->end;
    while (p < end) {
        const unsigned char *f[6];
        size_t n[6];
        if (!line_fields(&p, end, delim, other, 6, f, n))
            return IRREGULAR;
        int status = take_line(st, f[0], n[0], f[2], n[2], f[4], n[4], f[5], n[5]);
        if (status != PARSED)
            return status;
    }
    return PARSED;
}

#endif

/* Reads the lines of data[0:n] (GIL released): whole lines, the last ended by \n unless ``final`` (the file's
 * end). The first span also fixes the delimiter, from the first line's first blank. */
static int read_span(Reading *st, const unsigned char *data, size_t n)
{
    if (!n)
        return PARSED;
    st->data = data;
    st->end = data + n;
    if (st->delim < 0) {
        const unsigned char *q = data, *end = data + n;
        while (q < end && *q != ' ' && *q != '\t' && *q != '\n')
            q++;
        if (q == data || q >= end || *q == '\n')
            return IRREGULAR;
        st->delim = *q;
        st->other = *q == ' ' ? '\t' : ' ';
    }
    return split_lines(st);
}

static int carry_append(Reading *st, const unsigned char *p, size_t n)
{
    return copy_append(&st->carry, p, n) < 0 ? NO_MEMORY : PARSED;
}

/* One piece of the file (GIL released): the carried line completed and read, then the piece's whole lines; its
 * unended last line carried to the next piece. */
static int feed_piece(Reading *st, const unsigned char *data, size_t n)
{
    static const unsigned char BOM[3] = {0xEF, 0xBB, 0xBF};
    int status;
    if (!st->started) {  /* the first three bytes gathered, and dropped when they are a UTF-8 byte-order mark */
        size_t take = 3 - st->carry.len < n ? 3 - st->carry.len : n;
        if ((status = carry_append(st, data, take)) != PARSED)
            return status;
        data += take;
        n -= take;
        if (st->carry.len < 3)
            return PARSED;
        if (memcmp(st->carry.bytes, BOM, 3) == 0)
            st->carry.len = 0;
        st->started = 1;
    }
    if (st->carry.len) {
        const unsigned char *nl = (const unsigned char *)memchr(data, '\n', n);
        if (!nl)
            return carry_append(st, data, n);
        size_t k = (size_t)(nl - data) + 1;
        if ((status = carry_append(st, data, k)) != PARSED)
            return status;
        data += k;
        n -= k;
        /* the carry ends with its \n; read it where its bytes are, then forget it */
        status = read_span(st, st->carry.bytes, st->carry.len);
        st->carry.len = 0;
        if (status != PARSED)
            return status;
    }
    size_t whole = n;
    while (whole && data[whole - 1] != '\n')
        whole--;
    if ((status = read_span(st, data, whole)) != PARSED)
        return status;
    return carry_append(st, data + whole, n - whole);
}

/* The file's end (GIL released): its last line, if no \n ended it. */
static int finish_reading(Reading *st)
{
    int status = read_span(st, st->carry.bytes, st->carry.len);
    st->carry.len = 0;
    if (status != PARSED)
        return status;
    RunRows *r = st->r;
    if (!r->n)
        return IRREGULAR;  /* no line: an empty file */
    memset(r->docnos + r->docnos_len, 0, 16);  /* the padding make_key may read */
    if (r->n_blocks) {
        r->blocks[r->n_blocks - 1].end = r->n;
        r->blocks[r->n_blocks - 1].docnos_end = r->docnos_len;
    }
    /* the arrays cut to their length: the lane's next file goes on where they end */
    if (docnos_resize(r, r->docnos_len + 16) < 0 || rows_resize(r, r->n) < 0)
        return NO_MEMORY;
    return PARSED;
}

/* Run ``index``'s reading state, made at its first piece (the GIL held). */
static Reading *reading_of(Builder *self, Py_ssize_t index, Py_ssize_t size_hint, Py_ssize_t lane)
{
    if (self->encoded) {
        PyErr_SetString(PyExc_RuntimeError, "feed after vocabulary()");
        return NULL;
    }
    if (index < 0 || index >= self->n_runs) {
        PyErr_SetString(PyExc_ValueError, "run index out of range");
        return NULL;
    }
    if (lane < 0 || lane >= self->n_lanes) {
        PyErr_SetString(PyExc_ValueError, "lane out of range");
        return NULL;
    }
    RunRows *r = &self->runs[index];
    if (r->reading)
        return r->reading;
    if (r->counts) {
        PyErr_SetString(PyExc_ValueError, "run given twice");
        return NULL;
    }
    Reading *st = (Reading *)calloc(1, sizeof(Reading));
    r->counts = (int64_t *)calloc(self->n_topics + 1, sizeof(int64_t));
    if (!st || !r->counts) {
        free(st);
        PyErr_NoMemory();
        return NULL;
    }
    st->b = self;
    st->r = r;
    st->delim = st->other = -1;
    st->last_code = -1;
    st->one_tag = 1;
    r->reading = st;
    r->lane = &self->lanes[lane];
    /* room for as many lines and docno bytes as a file of the size given can hold (a line takes at least 12
     * bytes): address space, not memory, until written, and cut to what was read at the file's end */
    Py_ssize_t rows = size_hint > 0 ? size_hint / 12 + 2 : 4096;
    if (docnos_resize(r, (size_hint > 0 ? (size_t)size_hint : 65536) + 64) < 0 || rows_resize(r, rows) < 0) {
        PyErr_NoMemory();
        return NULL;
    }
    return st;
}

/* A refused or failed run: its rows freed, the builder spoiled (the build falls back). */
static void refuse(Builder *self, RunRows *r)
{
    rows_free(r);
    self->spoiled = 1;
}

/* feed(): True while the file is regular so far; False once it is not (the builder is then done). */
static PyObject *feed_bytes(Builder *self, Py_ssize_t index, const unsigned char *data, size_t n,
                            Py_ssize_t size_hint, Py_ssize_t lane)
{
    if (self->spoiled)
        Py_RETURN_FALSE;
    Reading *st = reading_of(self, index, size_hint, lane);
    if (!st)
        return NULL;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = feed_piece(st, data, n);
    Py_END_ALLOW_THREADS
    if (status == PARSED)
        Py_RETURN_TRUE;
    refuse(self, &self->runs[index]);
    if (status == NO_MEMORY)
        return PyErr_NoMemory();
    Py_RETURN_FALSE;
}

static PyObject *Builder_feed(Builder *self, PyObject *args)
{
    Py_ssize_t index, size_hint = 0, lane = 0;
    Py_buffer piece;
    if (!PyArg_ParseTuple(args, "ny*|nn", &index, &piece, &size_hint, &lane))
        return NULL;
    PyObject *result = feed_bytes(self, index, (const unsigned char *)piece.buf, (size_t)piece.len, size_hint,
                                  lane);
    PyBuffer_Release(&piece);
    return result;
}

static PyObject *finish_run(Builder *self, Py_ssize_t index)
{
    if (self->spoiled)
        Py_RETURN_NONE;
    if (index < 0 || index >= self->n_runs) {
        PyErr_SetString(PyExc_ValueError, "finish: run index out of range");
        return NULL;
    }
    if (!self->runs[index].reading) {  /* never fed: an empty file (or one given twice) */
        self->spoiled = 1;
        Py_RETURN_NONE;
    }
    Reading *st = self->runs[index].reading;
    RunRows *r = &self->runs[index];
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = finish_reading(st);
    Py_END_ALLOW_THREADS
    if (status == PARSED) {  /* the scores the fast paths left: CPython's correctly rounded conversion */
        char small[64];
        for (Py_ssize_t i = 0; i < st->n_deferred && status == PARSED; i++) {
            size_t n = st->deferred[i].len;
            char *text = n < sizeof(small) ? small : (char *)PyMem_Malloc(n + 1);
            if (!text) {
                status = NO_MEMORY;
                break;
            }
            memcpy(text, st->deferred_text + st->deferred[i].at, n);
            text[n] = '\0';
            char *stop = NULL;
            double value = PyOS_string_to_double(text, &stop, NULL);
            if (value == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                status = IRREGULAR;
            } else if (stop != text + n || !isfinite(value)) {
                status = IRREGULAR;
            } else {
                r->score[st->deferred[i].row] = value;
            }
            if (text != small)
                PyMem_Free(text);
        }
    }
    if (status == PARSED) {
        PyObject *result = Py_BuildValue("(y#Oy#)", (const char *)st->tag.bytes, (Py_ssize_t)st->tag.len,
                                         st->one_tag ? Py_True : Py_False, (const char *)r->counts,
                                         (Py_ssize_t)((self->n_topics + 1) * sizeof(int64_t)));
        if (!result) {
            refuse(self, r);
            return NULL;
        }
        reading_free(st);
        r->reading = NULL;
        return result;
    }
    refuse(self, r);
    if (status == NO_MEMORY)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Builder_finish(Builder *self, PyObject *args)
{
    Py_ssize_t index;
    if (!PyArg_ParseTuple(args, "n", &index))
        return NULL;
    return finish_run(self, index);
}

/* add_run(index, data): feed(index, data) then finish(index), for a file read whole. */
static PyObject *Builder_add_run(Builder *self, PyObject *args)
{
    Py_ssize_t index, lane = 0;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "ny*|n", &index, &data, &lane))
        return NULL;
    /* in pieces, as a gzip file comes: each piece read while it is in cache */
    const size_t piece = (size_t)1 << 18;
    const unsigned char *bytes = (const unsigned char *)data.buf;
    size_t size = (size_t)data.len, at = 0;
    PyObject *fed = NULL;
    do {
        size_t n = size - at < piece ? size - at : piece;
        Py_XDECREF(fed);
        fed = feed_bytes(self, index, bytes + at, n, data.len, lane);
        at += n;
    } while (fed == Py_True && at < size);
    PyBuffer_Release(&data);
    if (fed != Py_True) {
        if (!fed)
            return NULL;
        Py_DECREF(fed);
        Py_RETURN_NONE;
    }
    Py_DECREF(fed);
    return finish_run(self, index);
}

/* ------------------------------------------------------------------------------------------- vocabulary */

#define BATCH 16

/* Hashes every run's docnos of group g (topic code g - 1) in the range's table, in the order of the runs and
 * lines: each docno's id among the group's docnos (first seen, first numbered) replaces its offset in ``at``;
 * group->keys and group->first: each id's key and first occurrence. */
static int encode_group(Builder *b, Group *group, Arena *arenas, Cells *table, const Py_ssize_t *block_run,
                        const Py_ssize_t *block_index, Py_ssize_t n_blocks)
{
    cells_clear(table);
    Key keys[BATCH];
    const char *texts[BATCH];
    uint32_t *ats[BATCH];
    int in_batch = 0;
    for (Py_ssize_t k = 0; k <= n_blocks; k++) {
        RunRows *r = k < n_blocks ? &b->runs[block_run[k]] : NULL;
        Block *block = r ? &r->blocks[block_index[k]] : NULL;
        Py_ssize_t start = block ? block->start : 0, end = block ? block->end : 0;
        for (Py_ssize_t i = start; i <= end; i++) {
            if (i < end) {
                const char *text = r->docnos + r->at[i];
                /* its length: up to the next row's offset, read before this batch writes any id (the rows past
                 * the block may be another topic's, rewritten by another thread: its end is kept apart) */
                size_t next = i + 1 < end ? r->at[i + 1] : block->docnos_end;
                keys[in_batch] = make_key(text, next - r->at[i], r->docnos + r->docnos_len + 16);
                texts[in_batch] = text;
                ats[in_batch] = &r->at[i];
                PREFETCH(&table->cells[keys[in_batch].hash & table->mask]);
                in_batch++;
            }
            if (in_batch == BATCH || (in_batch && i == end && k == n_blocks)) {
                for (int j = 0; j < in_batch; j++) {
                    const Key *key = &keys[j];
                    uint32_t tag = (uint32_t)(key->hash >> 32);
                    size_t c = (size_t)key->hash & table->mask;
                    int32_t found = -1;
                    for (;; c = (c + 1) & table->mask) {
                        Cell cell = table->cells[c];
                        if (cell.id < 0)
                            break;
                        if (cell.tag != tag)
                            continue;
                        const Key *known = &group->keys[cell.id];
                        if (known->hash == key->hash && known->len == key->len && known->w0 == key->w0
                                && known->w1 == key->w1
                                && (key->len <= 16
                                    || memcmp((const char *)(uintptr_t)group->first[cell.id] + 16, texts[j] + 16,
                                              key->len - 16) == 0)) {
                            found = cell.id;
                            break;
                        }
                    }
                    if (found >= 0) {
                        *ats[j] = (uint32_t)found;
                        continue;
                    }
                    if (group->n == group->cap
                            && group_reserve(group, arenas, (Py_ssize_t)capacity_for((size_t)group->cap,
                                                                                     (size_t)group->n + 1, 4096)) < 0)
                        return -1;
                    int32_t id = (int32_t)group->n++;
                    group->first[id] = (uint64_t)(uintptr_t)texts[j];
                    group->keys[id] = *key;
                    table->cells[c].tag = tag;
                    table->cells[c].id = id;
                    *ats[j] = (uint32_t)id;
                    if (++table->count * 2 > table->mask + 1 && cells_grow(table, group->keys, group->n) < 0)
                        return -1;
                }
                in_batch = 0;
            }
        }
    }
    return 0;
}

/* Every docno of the group into ``all`` (every docno): group->final[id] = its id there. */
static int intern_group(Strings *all, Group *group)
{
    group->final = (int32_t *)malloc((group->n ? group->n : 1) * sizeof(int32_t));
    if (!group->final)
        return -1;
    /* the table (8 MB for TREC-8) is out of L2: each docno's cell fetched 16 docnos ahead, and the key a docno
     * seen before is compared with 8 ahead, from its cell by then in cache (0.035 -> 0.026 CPU-s) */
    const Key *keys = group->keys;
    Py_ssize_t n = group->n;
    for (Py_ssize_t id = 0; id < n && id < 16; id++)
        PREFETCH(&all->cells.cells[keys[id].hash & all->cells.mask]);
    for (Py_ssize_t id = 0; id < n; id++) {
        if (id + 16 < n)
            PREFETCH(&all->cells.cells[keys[id + 16].hash & all->cells.mask]);
        if (id + 8 < n) {
            Cell cell = all->cells.cells[keys[id + 8].hash & all->cells.mask];
            if (cell.id >= 0)
                PREFETCH(&all->keys[cell.id]);
        }
        int64_t global = strings_intern(all, &keys[id], (const char *)(uintptr_t)group->first[id]);
        if (global < 0)
            return -1;
        group->final[id] = (int32_t)global;
    }
    group_forget_keys(group);  /* their arenas are freed once every group is interned */
    return 0;
}

/* The sort of the vocabulary: the first 16 bytes as two big-endian words, then the rest. */
typedef struct {
    uint64_t a, b;
    uint32_t id, len;
} SortKey;

/* A key word (8 bytes of a string as they lie in memory) as a big-endian number: compared as numbers, the words
 * order as their bytes do (strcmp). */
static inline uint64_t big_endian(uint64_t word)
{
    unsigned char bytes[8];
    memcpy(bytes, &word, 8);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | bytes[i];
    return v;
}

static inline int key_less(const SortKey *x, const SortKey *y, const Strings *all)
{
    if (x->a != y->a)
        return x->a < y->a;
    if (x->b != y->b)
        return x->b < y->b;
    if (x->len > 16 && y->len > 16) {
        size_t m = (x->len < y->len ? x->len : y->len) - 16;
        int c = memcmp(all->text + all->tail_at[x->id], all->text + all->tail_at[y->id], m);
        if (c)
            return c < 0;
    }
    return x->len < y->len;  /* no NUL in a docno: equal padded words and one of 16 bytes or fewer: a prefix */
}

static void sift_down(SortKey *v, Py_ssize_t root, Py_ssize_t n, const Strings *all)
{
    for (;;) {
        Py_ssize_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && key_less(&v[child], &v[child + 1], all))
            child++;
        if (!key_less(&v[root], &v[child], all))
            return;
        SortKey t = v[root];
        v[root] = v[child];
        v[child] = t;
        root = child;
    }
}

/* Introsort: quicksort (median of three), heapsort past a depth limit, insertion sort for short ranges. */
static void sort_keys(SortKey *v, Py_ssize_t n, const Strings *all, int depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            for (Py_ssize_t i = n / 2 - 1; i >= 0; i--)
                sift_down(v, i, n, all);
            for (Py_ssize_t i = n - 1; i > 0; i--) {
                SortKey t = v[0];
                v[0] = v[i];
                v[i] = t;
                sift_down(v, 0, i, all);
            }
            return;
        }
        Py_ssize_t mid = n / 2;
        if (key_less(&v[mid], &v[0], all)) { SortKey t = v[mid]; v[mid] = v[0]; v[0] = t; }
        if (key_less(&v[n - 1], &v[0], all)) { SortKey t = v[n - 1]; v[n - 1] = v[0]; v[0] = t; }
        if (key_less(&v[n - 1], &v[mid], all)) { SortKey t = v[n - 1]; v[n - 1] = v[mid]; v[mid] = t; }
        SortKey pivot = v[mid];
        Py_ssize_t i = 0, j = n - 1;
        for (;;) {
            while (key_less(&v[i], &pivot, all))
                i++;
            while (key_less(&pivot, &v[j], all))
                j--;
            if (i >= j)
                break;
            SortKey t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        Py_ssize_t left = j + 1;  /* v[0:left] <= pivot <= v[left:n] */
        if (left < n - left) {
            sort_keys(v, left, all, depth);
            v += left;
            n -= left;
        } else {
            sort_keys(v + left, n - left, all, depth);
            n = left;
        }
    }
    for (Py_ssize_t i = 1; i < n; i++) {
        SortKey x = v[i];
        Py_ssize_t j = i;
        while (j > 0 && key_less(&x, &v[j - 1], all)) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* The byte of a sort key's first 16 at ``place`` (0-15). */
static inline unsigned key_byte(const SortKey *k, int place)
{
    return (unsigned)((place < 8 ? k->a >> (56 - 8 * place) : k->b >> (120 - 8 * place)) & 0xFF);
}

/* Sorts keys[0:n] into out[0:n] (``out``: ``keys`` or ``spare``, each with room for n) as sort_keys does (the order is
 * total: the vocabulary's words are distinct), by their bytes from ``place`` on (the bytes before it are the same for
 * all): a most-significant-byte-first radix sort, each range moved into its byte's buckets in the other array and
 * each bucket sorted by the next byte from there; a byte every key of a range shares costs one count; a bucket of at
 * most 32 keys, or of keys equal in all 16 bytes, goes to sort_keys. TREC-8's 0.35 M docnos: 27 -> 16 ms (introsort
 * alone compares each key some 20 times, its branches mispredicted half the time). */
static void radix_sort_keys(SortKey *keys, SortKey *spare, SortKey *out, Py_ssize_t n, int place, const Strings *all)
{
    Py_ssize_t count[256];
    for (;;) {
        if (n <= 32 || place == 16) {
            sort_keys(keys, n, all, 2 * 64);
            if (out != keys)
                memcpy(out, keys, (size_t)n * sizeof(SortKey));
            return;
        }
        memset(count, 0, sizeof(count));
        for (Py_ssize_t i = 0; i < n; i++)
            count[key_byte(&keys[i], place)]++;
        if (count[key_byte(&keys[0], place)] != n)
            break;
        place++;  /* every key shares this byte */
    }
    Py_ssize_t start[256], fill[256], at = 0;
    for (int d = 0; d < 256; d++) {
        start[d] = fill[d] = at;
        at += count[d];
    }
    for (Py_ssize_t i = 0; i < n; i++)
        spare[fill[key_byte(&keys[i], place)]++] = keys[i];
    for (int d = 0; d < 256; d++)  /* the keys are in ``spare`` now, ``keys`` the spare */
        if (count[d])
            radix_sort_keys(spare + start[d], keys + start[d], out + start[d], count[d], place + 1, all);
}

/* Step 2's first half for groups first..end-1, GIL released (-1: out of memory). Groups are disjoint in the rows
 * they write, so two calls on disjoint ranges may run at once. */
static int encode_groups(Builder *b, Py_ssize_t first, Py_ssize_t end)
{
    Py_ssize_t n = end - first, total = 0;
    Py_ssize_t *starts = (Py_ssize_t *)calloc(n + 1, sizeof(Py_ssize_t));
    if (!starts)
        return -1;
    for (Py_ssize_t s = 0; s < b->n_runs; s++)
        for (Py_ssize_t k = 0; k < b->runs[s].n_blocks; k++) {
            Py_ssize_t g = b->runs[s].blocks[k].topic + 1;
            if (g >= first && g < end)
                starts[g - first + 1]++;
        }
    for (Py_ssize_t g = 0; g < n; g++)
        starts[g + 1] += starts[g];
    total = starts[n];
    Py_ssize_t *block_run = (Py_ssize_t *)malloc((total ? total : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *block_index = (Py_ssize_t *)malloc((total ? total : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *fill = (Py_ssize_t *)malloc((n + 1) * sizeof(Py_ssize_t));
    int failed = !block_run || !block_index || !fill;
    if (!failed) {
        memcpy(fill, starts, (n + 1) * sizeof(Py_ssize_t));
        for (Py_ssize_t s = 0; s < b->n_runs; s++) {
            for (Py_ssize_t k = 0; k < b->runs[s].n_blocks; k++) {
                Py_ssize_t g = b->runs[s].blocks[k].topic + 1;
                if (g < first || g >= end)
                    continue;
                Py_ssize_t at = fill[g - first]++;
                block_run[at] = s;
                block_index[at] = k;
            }
        }
    }
    /* one table for the range's groups, emptied for each: sized for a quarter of the largest group's rows distinct
     * (TREC-8: 13%), so it seldom grows, and its pages are faulted in once (a table per group: 100 MB for TREC-8) */
    Py_ssize_t largest = 0;
    for (Py_ssize_t g = 0; g < n && !failed; g++) {
        Py_ssize_t rows = 0;
        for (Py_ssize_t k = starts[g]; k < starts[g + 1]; k++) {
            const Block *block = &b->runs[block_run[k]].blocks[block_index[k]];
            rows += block->end - block->start;
        }
        fill[g] = rows;
        if (rows > largest)
            largest = rows;
    }
    Cells table = {NULL, 0, 0};
    if (!failed && cells_init(&table, (size_t)(largest / 4 > 512 ? largest / 4 : 512)) < 0)
        failed = 1;
    Arena *arenas = n ? b->groups[first].arenas : NULL;  /* the range's keys and first occurrences, group by group */
    for (Py_ssize_t g = 0; g < n && !failed; g++) {
        Group *group = &b->groups[first + g];
        /* its keys made at once for a quarter of its rows distinct (TREC-8: 13%; grown by doubling from 4096, they
         * were copied three or four times a topic), then cut to its ids, so the next group's follow them */
        if (group_reserve(group, arenas, fill[g] / 4) < 0
                || encode_group(b, group, arenas, &table, block_run + starts[g], block_index + starts[g],
                                starts[g + 1] - starts[g]) < 0) {
            failed = 1;
            break;
        }
        void *keys = group->keys, *first_seen = group->first;
        if (group->keys && (arena_resize(&arenas[0], &keys, (size_t)group->n * sizeof(Key),
                                         (size_t)group->n * sizeof(Key)) < 0
                            || arena_resize(&arenas[1], &first_seen, (size_t)group->n * sizeof(uint64_t),
                                            (size_t)group->n * sizeof(uint64_t)) < 0)) {
            failed = 1;  /* (a block cut in place takes no memory: this cannot happen) */
            break;
        }
        group->cap = group->n;
        group->encoded = 1;
    }
    cells_free(&table);
    free(starts);
    free(block_run);
    free(block_index);
    free(fill);
    return failed ? -1 : 0;
}

/* Step 2's second half, GIL released (-1: out of memory): every group's docnos and the qrels' into ``all``, sorted.
 * qrels_ids: the qrels' docnos' positions in the sorted vocabulary; keys_out: the sorted keys. */
static int encode_all(Builder *b, Strings *all, const char *qrels, Py_ssize_t qrels_len, const int64_t *offsets,
                      Py_ssize_t n_qrels, int32_t *qrels_ids, int32_t **rank_out, SortKey **keys_out)
{
    Py_ssize_t G = b->n_topics + 1;
    int failed = 0;
    for (Py_ssize_t g = 0; g < G && !failed; g++)
        if (intern_group(all, &b->groups[g]) < 0)
            failed = 1;
    for (Py_ssize_t g = 0; g < G && !failed; g++) {  /* the groups' keys and first occurrences: in ``all`` now */
        arena_free(&b->groups[g].arenas[0]);
        arena_free(&b->groups[g].arenas[1]);
    }
    for (Py_ssize_t start = 0; start < n_qrels && !failed; start += BATCH) {  /* cells fetched a batch ahead */
        Key k[BATCH];
        Py_ssize_t stop = start + BATCH < n_qrels ? start + BATCH : n_qrels;
        for (Py_ssize_t i = start; i < stop; i++) {
            k[i - start] = make_key(qrels + offsets[i], (size_t)(offsets[i + 1] - offsets[i]), qrels + qrels_len);
            PREFETCH(&all->cells.cells[k[i - start].hash & all->cells.mask]);
        }
        for (Py_ssize_t i = start; i < stop && !failed; i++) {
            int64_t id = strings_intern(all, &k[i - start], qrels + offsets[i]);
            if (id < 0)
                failed = 1;
            else
                qrels_ids[i] = (int32_t)id;
        }
    }
    if (failed)
        return -1;
    size_t V = all->count;
    size_t room = V ? V : 1;  /* the sizes vocabulary() frees them with */
    SortKey *keys = (SortKey *)big_alloc(room * sizeof(SortKey));
    SortKey *tmp = (SortKey *)big_alloc(room * sizeof(SortKey));
    int32_t *rank = (int32_t *)big_alloc(room * sizeof(int32_t));
    if (!keys || !rank || !tmp) {
        big_free(keys, room * sizeof(SortKey));
        big_free(tmp, room * sizeof(SortKey));
        big_free(rank, room * sizeof(int32_t));
        return -1;
    }
    for (size_t i = 0; i < V; i++) {  /* the key words are the first 16 bytes, zero-padded */
        keys[i].a = big_endian(all->keys[i].w0);
        keys[i].b = big_endian(all->keys[i].w1);
        keys[i].id = (uint32_t)i;
        keys[i].len = all->keys[i].len;
    }
    radix_sort_keys(keys, tmp, keys, (Py_ssize_t)V, 0, all);
    big_free(tmp, room * sizeof(SortKey));
    for (size_t i = 0; i < V; i++)
        rank[keys[i].id] = (int32_t)i;
    for (Py_ssize_t g = 0; g < G; g++) {
        Group *group = &b->groups[g];
        for (Py_ssize_t k = 0; k < group->n; k++)
            group->final[k] = rank[group->final[k]];
    }
    for (Py_ssize_t i = 0; i < n_qrels; i++)
        qrels_ids[i] = rank[qrels_ids[i]];
    *rank_out = rank;
    *keys_out = keys;
    return 0;
}

static PyObject *Builder_encode(Builder *self, PyObject *args)
{
    Py_ssize_t first, end;
    if (!PyArg_ParseTuple(args, "nn", &first, &end))
        return NULL;
    if (self->encoded || self->spoiled) {
        PyErr_SetString(PyExc_RuntimeError, "encode() after vocabulary(), or after a refused run");
        return NULL;
    }
    if (first < 0 || end > self->n_topics + 1 || first > end) {
        PyErr_SetString(PyExc_ValueError, "encode: groups out of range");
        return NULL;
    }
    for (Py_ssize_t s = 0; s < self->n_runs; s++) {
        if (!self->runs[s].counts || self->runs[s].reading) {
            PyErr_SetString(PyExc_RuntimeError, "encode() before every run is finished");
            return NULL;
        }
    }
    for (Py_ssize_t g = first; g < end; g++) {
        if (self->groups[g].encoded || self->groups[g].keys) {
            PyErr_SetString(PyExc_RuntimeError, "encode: a group given twice");
            return NULL;
        }
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = encode_groups(self, first, end);
    Py_END_ALLOW_THREADS
    if (status < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* A word's n bytes into ``into``: its first 16 (or fewer) from ``head``, the rest from ``tail``. */
static inline void join_word(unsigned char *into, const unsigned char *head, const unsigned char *tail, size_t n)
{
    memcpy(into, head, n < 16 ? n : 16);
    if (n > 16)
        memcpy(into + 16, tail, n - 16);
}

/* String ``id`` of v, its key's length of bytes, into ``into``: its first 16 from its key's words (as they lay in
 * memory), the rest from v's text. */
static inline void strings_word(const Strings *v, Py_ssize_t id, unsigned char *into)
{
    const Key *k = &v->keys[id];
    unsigned char head[16];
    memcpy(head, &k->w0, 8);
    memcpy(head + 8, &k->w1, 8);
    join_word(into, head, k->len > 16 ? (const unsigned char *)v->text + v->tail_at[id] : head, k->len);
}

static PyObject *Builder_vocabulary(Builder *self, PyObject *args)
{
    Py_buffer data, offsets;
    if (!PyArg_ParseTuple(args, "y*y*", &data, &offsets))
        return NULL;
    PyObject *result = NULL, *words = NULL, *ids = NULL;
    Strings all;
    char *scratch = NULL;  /* a non-ASCII word's bytes, to be decoded */
    size_t scratch_cap = 0;
    int32_t *rank = NULL;
    SortKey *keys = NULL;
    memset(&all, 0, sizeof(all));
    if (self->encoded || self->spoiled) {
        PyErr_SetString(PyExc_RuntimeError, "vocabulary() called twice, or after a refused run");
        goto done;
    }
    for (Py_ssize_t g = 0; g <= self->n_topics; g++) {
        if (!self->groups[g].encoded) {
            PyErr_SetString(PyExc_RuntimeError, "vocabulary() before encode() of every group");
            goto done;
        }
    }
    if (offsets.len % (Py_ssize_t)sizeof(int64_t) != 0 || offsets.len < (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "vocabulary: offsets must be int64, n + 1 of them");
        goto done;
    }
    Py_ssize_t n_qrels = offsets.len / (Py_ssize_t)sizeof(int64_t) - 1;
    const int64_t *at = (const int64_t *)offsets.buf;
    for (Py_ssize_t i = 0; i < n_qrels; i++) {
        if (at[i] < 0 || at[i + 1] < at[i] || at[i + 1] > data.len || at[i + 1] - at[i] >= UINT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "vocabulary: offsets outside the data");
            goto done;
        }
    }
    ids = PyBytes_FromStringAndSize(NULL, n_qrels * (Py_ssize_t)sizeof(int32_t));
    if (!ids)
        goto done;
    self->encoded = 1;
    /* the table of every docno sized once: for half the (topic, docno) pairs distinct (TREC-8: 41%), or for the
     * largest group or the qrels when they are more; it grows if that is too few */
    size_t pairs = 0, most = (size_t)n_qrels;
    for (Py_ssize_t g = 0; g <= self->n_topics; g++) {
        pairs += (size_t)self->groups[g].n;
        if ((size_t)self->groups[g].n > most)
            most = (size_t)self->groups[g].n;
    }
    if (strings_init(&all, pairs / 2 > most ? pairs / 2 : most) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = encode_all(self, &all, (const char *)data.buf, data.len, at, n_qrels, (int32_t *)PyBytes_AS_STRING(ids),
                        &rank, &keys);
    Py_END_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < self->n_runs; s++)  /* the docnos are in ``all`` now; their pages go to outputs() */
        self->runs[s].docnos = NULL;
    if (status < 0) {
        self->spoiled = 1;
        PyErr_NoMemory();
        goto done;
    }
    words = PyList_New((Py_ssize_t)all.count);
    if (!words)
        goto done;
    for (size_t i = 0; i < all.count; i++) {
        /* each word's first 16 bytes from its sort key, the rest from ``text``: the words are read in sorted order,
         * and reading each one's bytes where they were stored was a cache miss a word */
        uint32_t id = keys[i].id;
        size_t n = keys[i].len;
        unsigned char head[16];
        for (int j = 0; j < 8; j++) {
            head[j] = (unsigned char)(keys[i].a >> (56 - 8 * j));
            head[8 + j] = (unsigned char)(keys[i].b >> (56 - 8 * j));
        }
        const unsigned char *tail = n > 16 ? (const unsigned char *)all.text + all.tail_at[id] : head;
        unsigned char high = (keys[i].a | keys[i].b) & 0x8080808080808080ULL ? 0x80 : 0;
        for (size_t j = 16; j < n; j++)  /* every run file's docno is ASCII; a qrels docno may not be */
            high |= tail[j - 16];
        PyObject *word;
        if (high < 0x80) {  /* ASCII: the string made and filled directly, not decoded */
            word = PyUnicode_New((Py_ssize_t)n, 127);
            if (!word)
                goto done;
            join_word(PyUnicode_1BYTE_DATA(word), head, tail, n);
        } else {
            if (n > scratch_cap) {
                char *grown = (char *)realloc(scratch, n);
                if (!grown) {
                    PyErr_NoMemory();
                    goto done;
                }
                scratch = grown;
                scratch_cap = n;
            }
            join_word((unsigned char *)scratch, head, tail, n);
            word = PyUnicode_DecodeUTF8(scratch, (Py_ssize_t)n, "strict");
            if (!word)
                goto done;
        }
        PyList_SET_ITEM(words, (Py_ssize_t)i, word);
    }
    result = Py_BuildValue("(OO)", words, ids);
done:
    Py_XDECREF(words);
    Py_XDECREF(ids);
    big_free(rank, (all.count ? all.count : 1) * sizeof(int32_t));  /* as encode_all made them */
    big_free(keys, (all.count ? all.count : 1) * sizeof(SortKey));
    strings_free(&all);
    free(scratch);
    PyBuffer_Release(&data);
    PyBuffer_Release(&offsets);
    return result;
}

/* ------------------------------------------------------------------------------------------------ place */

typedef struct {
    double key;    /* the score as compared: single precision with float32 ties */
    double score;  /* the score as read */
    int32_t doc;   /* sorted docno id */
    int32_t local; /* its id among its topic's docnos */
} Entry;

/* a before b in trec_eval order: higher score, then higher docno */
static inline int before(const Entry *a, const Entry *b)
{
    return a->key > b->key || (a->key == b->key && a->doc > b->doc);
}

/* Stable merge sort of e[0:n] (tmp: room for n). */
static void merge_sort(Entry *e, Entry *tmp, Py_ssize_t n)
{
    if (n <= 24) {
        for (Py_ssize_t i = 1; i < n; i++) {
            Entry x = e[i];
            Py_ssize_t j = i;
            while (j > 0 && before(&x, &e[j - 1])) {
                e[j] = e[j - 1];
                j--;
            }
            e[j] = x;
        }
        return;
    }
    Py_ssize_t half = n / 2;
    merge_sort(e, tmp, half);
    merge_sort(e + half, tmp, n - half);
    if (!before(&e[half], &e[half - 1]))
        return;
    memcpy(tmp, e, half * sizeof(Entry));
    Py_ssize_t i = 0, j = half, k = 0;
    while (i < half && j < n)
        e[k++] = before(&e[j], &tmp[i]) ? e[j++] : tmp[i++];
    while (i < half)
        e[k++] = tmp[i++];
}

/* Puts e[0:n] in trec_eval order, stably: the whole block when a score rises, else each run of tied scores. */
static void order_block(Entry *e, Entry *tmp, Py_ssize_t n)
{
    int rises = 0, misordered = 0;
    for (Py_ssize_t i = 1; i < n; i++) {
        if (e[i].key > e[i - 1].key) {
            rises = 1;
            break;
        }
        if (e[i].key == e[i - 1].key && e[i].doc > e[i - 1].doc)
            misordered = 1;
    }
    if (rises) {
        merge_sort(e, tmp, n);
        return;
    }
    if (!misordered)
        return;
    Py_ssize_t start = 0;
    while (start < n) {
        Py_ssize_t stop = start + 1;
        while (stop < n && e[stop].key == e[start].key)
            stop++;
        if (stop - start > 1)
            merge_sort(e + start, tmp, stop - start);
        start = stop;
    }
}

static int writable_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, Py_ssize_t length, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->len != itemsize * length) {
        PyErr_Format(PyExc_ValueError, "place: %s holds %zd bytes, not %zd", what, view->len, itemsize * length);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *Builder_place(Builder *self, PyObject *args)
{
    Py_ssize_t first, stop, width;
    PyObject *docs_obj, *scores_obj, *repeated_obj;
    if (!PyArg_ParseTuple(args, "nnnOOO", &first, &stop, &width, &docs_obj, &scores_obj, &repeated_obj))
        return NULL;
    if (!self->encoded || self->spoiled) {
        PyErr_SetString(PyExc_RuntimeError, "place() before vocabulary()");
        return NULL;
    }
    if (first < 0 || stop > self->n_runs || first > stop || width < 1) {
        PyErr_SetString(PyExc_ValueError, "place: runs or width out of range");
        return NULL;
    }
    Py_ssize_t S = self->n_runs, T = self->n_topics;
    Py_buffer docs_view, scores_view, repeated_view;
    if (writable_buffer(docs_obj, &docs_view, 4, S * T * width, "docs") < 0)
        return NULL;
    if (writable_buffer(scores_obj, &scores_view, 8, S * T * width, "scores") < 0) {
        PyBuffer_Release(&docs_view);
        return NULL;
    }
    if (writable_buffer(repeated_obj, &repeated_view, 1, S * T, "repeated") < 0) {
        PyBuffer_Release(&docs_view);
        PyBuffer_Release(&scores_view);
        return NULL;
    }
    int32_t *docs = (int32_t *)docs_view.buf;
    double *scores = (double *)scores_view.buf;
    uint8_t *repeated = (uint8_t *)repeated_view.buf;
    size_t most = 0;  /* the most docnos a topic has (a ranking's repeats are found by their ids in its topic: the
                       * stamps of 17 k ids, 68 KB, stay in the core's cache, where the 0.35 M of the vocabulary's,
                       * 1.4 MB, did not) */
    for (Py_ssize_t g = 1; g <= T; g++)
        if ((size_t)self->groups[g].n > most)
            most = (size_t)self->groups[g].n;
    int float32_ties = self->float32_ties;
    int failed = 0;

    Py_BEGIN_ALLOW_THREADS
    uint32_t *stamp = (uint32_t *)calloc(most ? most : 1, sizeof(uint32_t));
    Py_ssize_t *starts = (Py_ssize_t *)malloc((T + 1) * sizeof(Py_ssize_t));
    Entry *entries = NULL, *tmp = NULL;
    Py_ssize_t entries_cap = 0;
    uint32_t block = 0;
    if (!stamp || !starts)
        failed = 1;
    for (Py_ssize_t s = first; s < stop && !failed; s++) {
        RunRows *r = &self->runs[s];
        Py_ssize_t kept = r->n - r->counts[0];
        if (kept > entries_cap) {
            big_free(entries, (size_t)entries_cap * sizeof(Entry));
            big_free(tmp, (size_t)entries_cap * sizeof(Entry));
            entries_cap = kept;
            if ((size_t)kept * sizeof(Entry) >= BIG)  /* the whole of its 2 MB pages: runs a little longer fit */
                entries_cap = (Py_ssize_t)(big_length((size_t)kept * sizeof(Entry)) / sizeof(Entry));
            entries = (Entry *)big_alloc((size_t)entries_cap * sizeof(Entry));
            tmp = (Entry *)big_alloc((size_t)entries_cap * sizeof(Entry));
            if (!entries || !tmp) {
                failed = 1;
                break;
            }
        }
        Py_ssize_t at = 0;
        for (Py_ssize_t t = 0; t < T; t++) {
            starts[t] = at;
            at += r->counts[t + 1];
        }
        for (Py_ssize_t k = 0; k < r->n_blocks; k++) {  /* each topic's lines together, in file order */
            int32_t t = r->blocks[k].topic;
            if (t < 0)
                continue;
            const int32_t *final = self->groups[t + 1].final;
            for (Py_ssize_t i = r->blocks[k].start; i < r->blocks[k].end; i++) {
                Entry *e = &entries[starts[t]++];
                e->score = r->score[i];
                e->key = float32_ties ? (double)(float)e->score : e->score;
                e->local = (int32_t)r->at[i];
                e->doc = final[e->local];
            }
        }
        Entry *e = entries;
        for (Py_ssize_t t = 0; t < T; t++) {
            Py_ssize_t n = r->counts[t + 1];
            order_block(e, tmp, n);
            Py_ssize_t placed = n < width ? n : width;
            int32_t *drow = docs + (s * T + t) * width;
            double *srow = scores + (s * T + t) * width;
            uint8_t twice = 0;
            block++;
            for (Py_ssize_t k = 0; k < placed; k++) {
                drow[k] = e[k].doc;
                srow[k] = e[k].score;
                int32_t d = e[k].local;
                if (stamp[d] == block)
                    twice = 1;
                stamp[d] = block;
            }
            for (Py_ssize_t k = placed; k < width; k++) {
                drow[k] = -1;
                srow[k] = NAN;
            }
            repeated[s * T + t] = twice;
            e += n;
        }
    }
    free(stamp);
    free(starts);
    big_free(entries, (size_t)entries_cap * sizeof(Entry));
    big_free(tmp, (size_t)entries_cap * sizeof(Entry));
    Py_END_ALLOW_THREADS

    PyBuffer_Release(&docs_view);
    PyBuffer_Release(&scores_view);
    PyBuffer_Release(&repeated_view);
    if (failed)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------- outputs */

/* The memory of place()'s output arrays, a writable buffer (numpy arrays made over it keep it alive), made of the
 * docnos' pages where it can be: on Linux, every whole 2 MB page of the docnos' arenas (read for the last time in
 * vocabulary()) is moved into it by mremap, which hands pages over without copying them. So TREC-8's 77 MB of
 * outputs are not faulted in fresh, each page zeroed by the kernel, while the docnos' 88 MB are unmapped: 0.03
 * CPU-s of kernel time a build, more in a fresh process. place() writes every byte of it; anywhere else (or for what
 * the docnos do not cover) the pages are mapped fresh as before. */
typedef struct {
    PyObject_HEAD
    Pages pages;
    Py_ssize_t len;
} Outputs;

static int Outputs_getbuffer(Outputs *self, Py_buffer *view, int flags)
{
    return PyBuffer_FillInfo(view, (PyObject *)self, self->pages.base, self->len, 0, flags);
}

static void Outputs_dealloc(Outputs *self)
{
    pages_free(&self->pages);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyBufferProcs Outputs_as_buffer = {(getbufferproc)Outputs_getbuffer, NULL};

static PyTypeObject OutputsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "evalkit.data._native_runs.Outputs",
    .tp_basicsize = sizeof(Outputs),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The memory of place()'s output arrays (a writable buffer).",
    .tp_dealloc = (destructor)Outputs_dealloc,
    .tp_as_buffer = &Outputs_as_buffer,
};

/* The whole 2 MB pages of arena ``from``'s slabs moved to into->base + *at onwards (up to ``limit`` bytes in all). */
static void move_pages(Pages *into, Arena *from, size_t *at, size_t limit)
{
#if defined(__linux__) && defined(MREMAP_FIXED) && defined(MREMAP_MAYMOVE)
    if (!into->map)
        return;
    for (Slab *s = from->head; s && *at < limit; s = s->next) {
        if (!s->pages.map)
            continue;  /* a small slab, from malloc */
        size_t used = (s->used + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE, whole = s->pages.cap / HUGE_PAGE * HUGE_PAGE;
        size_t n = used < whole ? used : whole;
        if (n > limit - *at)
            n = limit - *at;
        if (n && mremap(s->pages.base, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, into->base + *at) != MAP_FAILED)
            *at += n;  /* (when it fails, nothing moved: that part keeps its fresh pages) */
    }
#else
    (void)into;
    (void)from;
    (void)at;
    (void)limit;
#endif
}

static PyObject *Builder_outputs(Builder *self, PyObject *args)
{
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "n", &size))
        return NULL;
    if (!self->encoded || self->spoiled) {
        PyErr_SetString(PyExc_RuntimeError, "outputs() before vocabulary()");
        return NULL;
    }
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "outputs: a negative size");
        return NULL;
    }
    Outputs *outputs = PyObject_New(Outputs, &OutputsType);
    if (!outputs)
        return NULL;
    outputs->len = size;
    if (pages_alloc(&outputs->pages, (size_t)size) < 0) {
        memset(&outputs->pages, 0, sizeof(outputs->pages));
        Py_DECREF(outputs);
        return PyErr_NoMemory();
    }
    size_t at = 0, limit = ((size_t)size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    for (Py_ssize_t l = 0; l < self->n_lanes; l++) {
        move_pages(&outputs->pages, &self->lanes[l].kind[DOCNOS], &at, limit);
        arena_free(&self->lanes[l].kind[DOCNOS]);
    }
    return (PyObject *)outputs;
}

/* Every lane's arenas: the rows of every run file. */
static void lanes_free(Builder *self)
{
    for (Py_ssize_t l = 0; l < self->n_lanes; l++)
        for (int k = 0; k < KINDS; k++)
            arena_free(&self->lanes[l].kind[k]);
}

/* Frees the runs' rows and the groups' ids once placed. */
static PyObject *Builder_release(Builder *self, PyObject *Py_UNUSED(ignored))
{
    for (Py_ssize_t s = 0; s < self->n_runs; s++)
        rows_free(&self->runs[s]);
    self->n_runs = 0;
    lanes_free(self);
    if (self->groups)
        for (Py_ssize_t g = 0; g <= self->n_topics; g++)
            group_free(&self->groups[g]);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------- the type */

static int Builder_init(Builder *self, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"topics", "float32_ties", "n_runs", "n_lanes", NULL};
    PyObject *topics;
    int float32_ties = 0;
    Py_ssize_t n_runs = 0, n_lanes = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!pn|n", keywords, &PyList_Type, &topics, &float32_ties, &n_runs,
                                     &n_lanes))
        return -1;
    if (n_runs < 0 || n_lanes < 1) {
        PyErr_SetString(PyExc_ValueError, "n_runs must be >= 0 and n_lanes >= 1");
        return -1;
    }
    if (self->topics.cells.cells) {
        PyErr_SetString(PyExc_RuntimeError, "Builder initialised twice");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(topics);
    self->runs = (RunRows *)calloc(n_runs ? n_runs : 1, sizeof(RunRows));
    if (!self->runs) {
        PyErr_NoMemory();
        return -1;
    }
    self->n_runs = n_runs;
    self->lanes = (Lane *)calloc(n_lanes, sizeof(Lane));
    if (!self->lanes) {
        PyErr_NoMemory();
        return -1;
    }
    self->n_lanes = n_lanes;
    if (strings_init(&self->topics, (size_t)n) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->n_topics = n;  /* before the groups, so dealloc frees what was made if a step below fails */
    self->groups = (Group *)calloc(n + 1, sizeof(Group));
    if (!self->groups) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(topics, i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "topics must be a list of bytes");
            return -1;
        }
        const char *s = PyBytes_AS_STRING(item);
        size_t len = (size_t)PyBytes_GET_SIZE(item);
        Key key = make_key(s, len, s + len);
        int64_t id = strings_intern(&self->topics, &key, s);
        if (id < 0) {
            PyErr_NoMemory();
            return -1;
        }
        if (id != i) {
            PyErr_Format(PyExc_ValueError, "topic %R is given twice", item);
            return -1;
        }
    }
    self->float32_ties = float32_ties;
    return 0;
}

static void Builder_dealloc(Builder *self)
{
    for (Py_ssize_t s = 0; s < self->n_runs; s++)
        rows_free(&self->runs[s]);
    free(self->runs);
    lanes_free(self);
    free(self->lanes);
    if (self->groups) {
        for (Py_ssize_t g = 0; g <= self->n_topics; g++)
            group_free(&self->groups[g]);
        free(self->groups);
    }
    strings_free(&self->topics);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Builder_methods[] = {
    {"feed", (PyCFunction)Builder_feed, METH_VARARGS,
     "feed(index, piece[, size_hint[, lane]]): read the next piece of run index's file; False once it is not "
     "regular."},
    {"finish", (PyCFunction)Builder_finish, METH_VARARGS,
     "finish(index): the file's end; None when it is not regular, else (tag, one_tag, counts)."},
    {"add_run", (PyCFunction)Builder_add_run, METH_VARARGS,
     "add_run(index, data[, lane]): feed(index, data) in pieces, then finish(index)."},
    {"encode", (PyCFunction)Builder_encode, METH_VARARGS,
     "encode(first, end): hash the docnos of groups first..end-1 (topic code + 1)."},
    {"vocabulary", (PyCFunction)Builder_vocabulary, METH_VARARGS,
     "Encode the docnos: the sorted vocabulary and the qrels' docnos' ids in it."},
    {"outputs", (PyCFunction)Builder_outputs, METH_VARARGS,
     "outputs(size): after vocabulary(), the memory (a writable buffer of size bytes) for place()'s arrays, made "
     "of the docnos' pages where it can be."},
    {"place", (PyCFunction)Builder_place, METH_VARARGS, "Write runs into the dense arrays."},
    {"release", (PyCFunction)Builder_release, METH_NOARGS, "Free the rows."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BuilderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "evalkit.data._native_runs.Builder",
    .tp_basicsize = sizeof(Builder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled reader of regular TREC run files (see the module's source for the interface).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Builder_init,
    .tp_dealloc = (destructor)Builder_dealloc,
    .tp_methods = Builder_methods,
};

/* ------------------------------------------------------------------------------------------------ qrels */

/* A regular qrels file, read whole (the pure-Python reader, evalkit.data.trec_files.read_qrels_columns, reads every
 * layout and names each error: this one reads only what it reads alike, and says None to the rest): every line 4
 * fields (topic iter docno grade) or every line 5 (topic iter docno stratum grade), as the first line has, between
 * one delimiter (the first line's first blank, space or tab, throughout), ASCII, none of NUL \r \v \f or the other
 * blank, no blank or comment line, no empty field; a grade -?[0-9]{1,9}, a stratum [0-9]{1,9} (both then within the
 * kit's ranges). Whether a (topic, docno) pair is judged twice is not checked here (the build checks it on ids).
 * The columns are written straight into the bytes objects returned (TREC-8's qrels: 4.4 ms with arrays copied into
 * them, most of it fresh pages). */
typedef struct {
    int32_t *codes;     /* per line: its topic's code (topics numbered as first seen) */
    int64_t *offsets;   /* per line + 1: where its docno begins in docnos */
    int64_t *grades, *strata;
    char *docnos;
    size_t n_docnos;
    Py_ssize_t n;
    Strings topics;     /* the topics, by code */
} QrelsRead;

/* A field of p[0:n] as an integer -?[0-9]{1,9} (``minus``: a sign may lead); 0: not one. */
static inline int small_integer(const unsigned char *p, size_t n, int minus, int64_t *value)
{
    int negative = minus && n && *p == '-';
    p += negative;
    n -= (size_t)negative;
    if (n < 1 || n > 9)
        return 0;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)p[i] - '0';
        if (d > 9)
            return 0;
        v = v * 10 + d;
    }
    *value = negative ? -v : v;
    return 1;
}

/* The lines of data[0:size] into q's arrays (room for every line; strata NULL for 4 fields), ``W`` fields a line
 * between ``delim``. 1: read; 0: not regular; -1: out of memory. GIL released. */
static int qrels_parse(QrelsRead *q, const unsigned char *data, size_t size, unsigned char delim, int W)
{
    const unsigned char *end = data + size, *p = data;
    unsigned char other = delim == ' ' ? '\t' : ' ';
    int32_t last_code = -1;
    const unsigned char *last_topic = NULL;
    size_t last_len = 0;
    q->offsets[0] = 0;
    while (p < end) {
        const unsigned char *f[5];
        size_t n[5];
        if (!line_fields(&p, end, delim, other, W, f, n) || f[0][0] == '#')
            return 0;
        Py_ssize_t i = q->n;
        if (!small_integer(f[W - 1], n[W - 1], 1, &q->grades[i]) || (q->strata && !small_integer(f[3], n[3], 0,
                                                                                                 &q->strata[i])))
            return 0;
        if (!(last_topic && n[0] == last_len && memcmp(f[0], last_topic, n[0]) == 0)) {
            Key key = make_key((const char *)f[0], n[0], (const char *)end);
            int64_t code = strings_intern(&q->topics, &key, (const char *)f[0]);
            if (code < 0)
                return -1;
            last_code = (int32_t)code;
            last_topic = f[0];
            last_len = n[0];
        }
        q->codes[i] = last_code;
        memcpy(q->docnos + q->n_docnos, f[2], n[2]);
        q->n_docnos += n[2];
        q->offsets[i + 1] = (int64_t)q->n_docnos;
        q->n = i + 1;
    }
    return q->n > 0;
}

static PyObject *read_qrels(PyObject *module, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *data = (const unsigned char *)view.buf, *end = data + view.len;
    PyObject *result = NULL, *topics = NULL, *codes = NULL, *docnos = NULL, *offsets = NULL, *grades = NULL;
    PyObject *strata = NULL;
    QrelsRead q;
    memset(&q, 0, sizeof(q));
    /* the delimiter: the first line's first blank; the width: its fields */
    unsigned char delim = 0;
    int W = 1;
    for (const unsigned char *p = data; p < end && *p != '\n'; p++)
        if (*p == ' ' || *p == '\t') {
            delim = delim ? delim : *p;
            W += *p == delim;
        }
    if (!delim || (W != 4 && W != 5)) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    Py_ssize_t lines = 1;
    for (const unsigned char *p = data; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        lines++;
    codes = PyBytes_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(int32_t));
    offsets = PyBytes_FromStringAndSize(NULL, (lines + 1) * (Py_ssize_t)sizeof(int64_t));
    grades = PyBytes_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(int64_t));
    strata = W == 5 ? PyBytes_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(int64_t)) : Py_None;
    docnos = PyBytes_FromStringAndSize(NULL, view.len);
    if (W == 4)
        Py_INCREF(Py_None);
    if (!codes || !offsets || !grades || !strata || !docnos)
        goto done;
    q.codes = (int32_t *)PyBytes_AS_STRING(codes);
    q.offsets = (int64_t *)PyBytes_AS_STRING(offsets);
    q.grades = (int64_t *)PyBytes_AS_STRING(grades);
    q.strata = W == 5 ? (int64_t *)PyBytes_AS_STRING(strata) : NULL;
    q.docnos = PyBytes_AS_STRING(docnos);
    if (strings_init(&q.topics, 64) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = qrels_parse(&q, data, (size_t)view.len, delim, W);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (status == 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    if (_PyBytes_Resize(&codes, q.n * (Py_ssize_t)sizeof(int32_t)) < 0
            || _PyBytes_Resize(&offsets, (q.n + 1) * (Py_ssize_t)sizeof(int64_t)) < 0
            || _PyBytes_Resize(&grades, q.n * (Py_ssize_t)sizeof(int64_t)) < 0
            || (W == 5 && _PyBytes_Resize(&strata, q.n * (Py_ssize_t)sizeof(int64_t)) < 0)
            || _PyBytes_Resize(&docnos, (Py_ssize_t)q.n_docnos) < 0)
        goto done;  /* (a failed resize freed its object and set it NULL) */
    topics = PyList_New((Py_ssize_t)q.topics.count);
    if (!topics)
        goto done;
    for (Py_ssize_t c = 0; c < (Py_ssize_t)q.topics.count; c++) {
        PyObject *topic = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)q.topics.keys[c].len);
        if (!topic)
            goto done;
        strings_word(&q.topics, c, (unsigned char *)PyBytes_AS_STRING(topic));
        PyList_SET_ITEM(topics, c, topic);
    }
    result = Py_BuildValue("((OOOOO)O)", topics, codes, docnos, offsets, grades, strata);
done:
    Py_XDECREF(topics);
    Py_XDECREF(codes);
    Py_XDECREF(docnos);
    Py_XDECREF(offsets);
    Py_XDECREF(grades);
    Py_XDECREF(strata);
    strings_free(&q.topics);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef module_methods[] = {
    {"read_qrels", (PyCFunction)read_qrels, METH_O,
     "read_qrels(data) -> None | ((topics: list[bytes], codes: bytes (int32), docnos: bytes, offsets: bytes (int64, "
     "n + 1), grades: bytes (int64)), strata: bytes (int64) | None): a regular qrels file's columns, topics numbered "
     "as first seen; None when it is not regular."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native_runs",
    "The compiled reader of regular TREC run files for evalkit.data.native_build (issue 30).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__native_runs(void)
{
    init_masks();
    choose_separator_finder();
    if (PyType_Ready(&OutputsType) < 0)
        return NULL;
    if (PyType_Ready(&BuilderType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&BuilderType);
    if (PyModule_AddObject(m, "Builder", (PyObject *)&BuilderType) < 0) {
        Py_DECREF(&BuilderType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddStringConstant(m, "SEPARATOR_FINDER", finder_name) < 0) {  /* which split_lines reads */
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

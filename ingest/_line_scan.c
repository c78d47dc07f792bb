/* The fast rows' matcher (ingest/fast.py): each line of an Arrow batch tried against the rows'
 * programs, which fast.py compiles from the rows' own regexes (`compile_row`), and the fields of
 * a matched line written straight into Arrow-shaped buffers. It runs what those regexes say and
 * nothing else: every hole is followed by text it cannot continue (compile_row checks), so one
 * greedy pass decides what RE2 decides, with no backtracking. Loaded with ctypes: no Python API.
 *
 * An op is four int32: code, a, b, slot (the output slot of a named hole, else -1). */
#include <stdint.h>
#include <string.h>

enum {
    OP_LIT = 1,     /* a: pool offset, b: length */
    OP_TIME = 2,    /* \d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d{3}: written to hour and ms */
    OP_UINT = 3,    /* \d{1,9}: an int slot */
    OP_SINT = 4,    /* -?\d{1,9}: an int slot */
    OP_IDS = 5,     /* (?:\d{1,9}(?:SEP\d{1,9})*)? with SEP "," (a 0) or ", " (a 1): a list slot */
    OP_WORD = 6,    /* [\w.-]+: a string slot */
    OP_TP = 7,      /* [\w.-]+-\d{1,9} split at the last '-': topic a string slot, partition (a) an int slot */
    OP_CHOICE = 8,  /* one of b literals from alts[a]: a string slot */
    OP_END = 9,     /* $ */
};

#define MAX_OPS 64

static inline int digit(uint8_t c) { return c >= '0' && c <= '9'; }

static inline int word(uint8_t c) {
    return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '-';
}

/* Up to 9 digits from p; the end (p when none). */
static inline int64_t digits9(const uint8_t *s, int64_t p, int64_t len) {
    int64_t q = p;
    while (q < len && q - p < 9 && digit(s[q])) q++;
    return q;
}

/* s[p:p+n) == text[0:n), within len: literals are short, a loop beats a call to memcmp. */
static inline int same(const uint8_t *s, int64_t p, int64_t len, const uint8_t *text, int32_t n) {
    if (len - p < n) return 0;
    for (int32_t i = 0; i < n; i++)
        if (s[p + i] != text[i]) return 0;
    return 1;
}

static inline int64_t number(const uint8_t *s, int64_t p, int64_t end) {
    int negative = p < end && s[p] == '-';
    int64_t v = 0;
    for (p += negative; p < end; p++) v = v * 10 + (s[p] - '0');
    return negative ? -v : v;
}

/* Does the line s[p:len) match ops[from:n_ops]? Where it ends (-1 if not); where each op
 * matched: start[k], end[k], mid[k] (the TopicPartition's '-', the choice's alternative). */
static int64_t match_ops(const uint8_t *s, int64_t len, const int32_t *ops, int32_t from, int32_t n_ops, int64_t p,
                         const uint8_t *pool, const int32_t *alts, int64_t *start, int64_t *end, int64_t *mid) {
    for (int32_t k = from; k < n_ops; k++) {
        const int32_t *op = ops + 4 * k;
        start[k] = p;
        switch (op[0]) {
        case OP_LIT:
            if (!same(s, p, len, pool + op[1], op[2])) return -1;
            p += op[2];
            break;
        case OP_TIME: {
            static const char shape[] = "dddd-dd-dd dd:dd:dd,ddd";
            if (len - p < 23) return -1;
            for (int i = 0; i < 23; i++) {
                uint8_t c = s[p + i];
                if (shape[i] == 'd' ? !digit(c) : shape[i] == ',' ? (c != ',' && c != '.') : c != (uint8_t)shape[i])
                    return -1;
            }
            p += 23;
            break;
        }
        case OP_UINT:
        case OP_SINT: {
            int64_t q = (op[0] == OP_SINT && p < len && s[p] == '-') ? p + 1 : p;
            int64_t e = digits9(s, q, len);
            if (e == q) return -1;
            p = e;
            break;
        }
        case OP_IDS:
            if (p < len && digit(s[p])) {
                for (;;) {
                    p = digits9(s, p, len);
                    int64_t r = p;
                    if (r < len && s[r] == ',') {
                        r++;
                        if (op[1] == 1) {
                            if (r < len && s[r] == ' ') r++;
                            else break;
                        }
                        if (r < len && digit(s[r])) {
                            p = r;
                            continue;
                        }
                    }
                    break;   /* the text after stops here: compile_row saw it cannot begin with SEP or a digit */
                }
            }
            break;
        case OP_WORD:
        case OP_TP: {
            int64_t q = p;
            while (q < len && word(s[q])) q++;
            if (q == p) return -1;
            if (op[0] == OP_TP) {
                int64_t dash = q - 1;
                while (dash > p && s[dash] != '-') dash--;
                if (dash <= p || q - dash - 1 < 1 || q - dash - 1 > 9) return -1;
                for (int64_t i = dash + 1; i < q; i++)
                    if (!digit(s[i])) return -1;
                mid[k] = dash;
            }
            p = q;
            break;
        }
        case OP_CHOICE: {
            int32_t i = op[1], last = op[1] + op[2];
            for (; i < last; i++)
                if (same(s, p, len, pool + alts[2 * i], alts[2 * i + 1])) break;
            if (i == last) return -1;
            mid[k] = i;
            p += alts[2 * i + 1];
            break;
        }
        case OP_END:
            if (p != len) return -1;
            break;
        default:
            return -1;
        }
        end[k] = p;
    }
    return p;
}

/* Scans the n lines of an Arrow binary array (data, offsets[0..n]). For every line, starts[i]:
 * does it begin "[dddd-dd-dd" (a log4j head or a partial one). For each line a row matches
 * (the first whose ops match), in order, the j-th: idx[j], row[j], hour[j] (yyyymmddhh), ms[j]
 * (within the hour), and its named holes: ints[slot * n + j]; strings appended to
 * str_data[slot * n_bytes ...] with their ends at str_offsets[slot * (n + 1) + j + 1]; lists
 * appended to list_values[slot * n_bytes ...], list_counts[slot * n + j] of them. A slot the
 * row has no hole for gets an empty string and an empty list (the caller knows which rows
 * hold which slots). Rows: row_ops[row_first[r] .. row_first[r + 1]), the first n_shared ops the
 * same in every row (matched once). Returns the matched lines. */
int64_t scan_lines(const uint8_t *data, const int32_t *offsets, int64_t n, const int32_t *row_ops,
                   const int32_t *row_first, int32_t n_rows, int32_t n_shared, const uint8_t *pool, const int32_t *alts,
                   int32_t n_str, int32_t n_list, uint8_t *starts, int64_t *idx, int8_t *row, int64_t *hour,
                   int64_t *ms, int32_t *ints, uint8_t *str_data, int32_t *str_offsets, int32_t *list_values,
                   int32_t *list_counts) {
    int64_t n_bytes = offsets[n] - offsets[0];
    int64_t start[MAX_OPS], end[MAX_OPS], mid[MAX_OPS];
    int64_t str_at[16], list_at[16];
    if (n_str > 16 || n_list > 16) return -1;
    for (int32_t r = 0; r < n_rows; r++)
        if (row_first[r + 1] - row_first[r] > MAX_OPS) return -1;
    for (int32_t t = 0; t < n_str; t++) {
        str_at[t] = 0;
        str_offsets[t * (n + 1)] = 0;
    }
    for (int32_t t = 0; t < n_list; t++) list_at[t] = 0;
    int64_t j = 0;
    int32_t last = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *s = data + offsets[i];
        int64_t len = offsets[i + 1] - offsets[i];
        starts[i] = len >= 11 && s[0] == '[' && digit(s[1]) && digit(s[2]) && digit(s[3]) && digit(s[4]) && s[5] == '-'
                    && digit(s[6]) && digit(s[7]) && s[8] == '-' && digit(s[9]) && digit(s[10]);
        if (!starts[i]) continue;   /* every row begins with the time */
        int64_t p = match_ops(s, len, row_ops, 0, n_shared, 0, pool, alts, start, end, mid);
        if (p < 0) continue;
        /* The rows' languages are disjoint: whichever is tried first, at most one matches. The
         * last line's row first (a log's lines come in runs of a kind). */
        int32_t r = -1;
        for (int32_t t = 0; t < n_rows && r < 0; t++) {
            int32_t c = t == 0 ? last : (t <= last ? t - 1 : t);
            if (match_ops(s, len, row_ops + 4 * row_first[c], n_shared, row_first[c + 1] - row_first[c], p, pool, alts,
                          start, end, mid) >= 0)
                r = c;
        }
        if (r < 0) continue;
        last = r;
        idx[j] = i;
        row[j] = (int8_t)r;
        for (int32_t t = 0; t < n_list; t++) list_counts[t * n + j] = 0;
        const int32_t *ops = row_ops + 4 * row_first[r];
        for (int32_t k = 0; k < row_first[r + 1] - row_first[r]; k++) {
            const int32_t *op = ops + 4 * k;
            int32_t slot = op[3];
            const uint8_t *t = s + start[k];
            switch (op[0]) {
            case OP_TIME:
                hour[j] = ((((t[0] - '0') * 10 + (t[1] - '0')) * 10 + (t[2] - '0')) * 10 + (t[3] - '0')) * 1000000LL
                          + ((t[5] - '0') * 10 + (t[6] - '0')) * 10000 + ((t[8] - '0') * 10 + (t[9] - '0')) * 100
                          + (t[11] - '0') * 10 + (t[12] - '0');
                ms[j] = (((t[14] - '0') * 10 + (t[15] - '0')) * 60 + (t[17] - '0') * 10 + (t[18] - '0')) * 1000
                        + (t[20] - '0') * 100 + (t[21] - '0') * 10 + (t[22] - '0');
                break;
            case OP_UINT:
            case OP_SINT:
                if (slot >= 0) ints[slot * n + j] = (int32_t)number(s, start[k], end[k]);   /* at most 9 digits */
                break;
            case OP_TP:
                if (op[1] >= 0) ints[op[1] * n + j] = (int32_t)number(s, mid[k] + 1, end[k]);
                /* fall through: the topic, before the '-' */
            case OP_WORD:
            case OP_CHOICE:
                if (slot >= 0) {
                    int64_t e = op[0] == OP_TP ? mid[k] : end[k];
                    memcpy(str_data + slot * n_bytes + str_at[slot], t, (size_t)(e - start[k]));
                    str_at[slot] += e - start[k];
                }
                break;
            case OP_IDS:
                if (slot >= 0) {
                    int32_t count = 0;
                    int64_t p = start[k];
                    while (p < end[k]) {
                        int64_t e = digits9(s, p, end[k]);
                        list_values[slot * n_bytes + list_at[slot] + count++] = (int32_t)number(s, p, e);
                        p = e;
                        while (p < end[k] && !digit(s[p])) p++;
                    }
                    list_at[slot] += count;
                    list_counts[slot * n + j] = count;
                }
                break;
            }
        }
        for (int32_t t = 0; t < n_str; t++) str_offsets[t * (n + 1) + j + 1] = (int32_t)str_at[t];
        j++;
    }
    return j;
}

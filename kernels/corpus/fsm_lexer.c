/*
 * fsm_lexer.c — hand-built inputs of kernels/corpus/fsm_lexer.cu (its
 * header says why each should be slow or fast).
 *
 * The greedy builder runs a C model of the kernel's automaton: every
 * iteration of the kernel's loop is one model step, named by the (state,
 * branch) body it executes; a warp pays, per iteration, for the distinct
 * bodies (and states) its lanes take.  Lane by lane, each character is
 * chosen to maximise the estimated cost of the bodies that the earlier
 * lanes do not take at the same iterations, three characters ahead.
 */
#include "kernels/corpus/corpus.h"

#include <string.h>

enum {
    S_START, S_IDENT, S_INT, S_FRAC, S_EXP, S_EXP_SIGN, S_EXP_DIG, S_STR, S_STR_ESC, S_SLASH,
    S_LINE_COMMENT, S_BLOCK_COMMENT, S_BLOCK_STAR, S_OP
};

#define LEN 32
#define MAX_STEPS (2 * (LEN + 1) + 2)
#define NBODY 43

/* Estimated issue cost of each body (instructions of its branch). */
static const int body_cost[NBODY] = {
    4,  4, 4, 3, 4, 4, 2, 8,      /* START: letter digit quote slash op dot ws other */
    5,  35,                       /* IDENT: continue, end (keyword compares) */
    5,  5, 5, 10,                 /* INT: digit dot e end */
    8,  4, 10,                    /* FRAC: digit e end */
    4,  4, 10,                    /* EXP: sign digit error */
    4,  10,                       /* EXP_SIGN: digit error */
    6,  20,                       /* EXP_DIG: digit end (power of ten, divide) */
    10, 3, 10, 5,                 /* STR: quote backslash newline other */
    8,  14,                       /* STR_ESC: known bad */
    3,  3, 10, 10,                /* SLASH: / * = else */
    2,  2,                        /* LINE_COMMENT */
    2,  2,                        /* BLOCK_COMMENT */
    2,  2, 2,                     /* BLOCK_STAR */
    12, 10,                       /* OP: pair single */
};
static const int body_state[NBODY] = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5,
    6, 6, 7, 7, 7, 7, 8, 8, 9, 9, 9, 9, 10, 10, 11, 11, 12, 12, 12, 13, 13,
};
#define STATE_COST 4

static int is_letter(unsigned c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(unsigned c) { return c >= '0' && c <= '9'; }
static int is_op(unsigned c)
{
    return c == '+' || c == '-' || c == '=' || c == '<' || c == '>' || c == '!' || c == '&' || c == '|';
}

typedef struct {
    int state;
    unsigned op;
} lex_state;

/* One iteration of the kernel's loop on character c: the body taken; *adv
 * says whether c is consumed. */
static int lex_step(lex_state *st, unsigned c, int *adv)
{
    *adv = 1;
    switch (st->state) {
    case S_START:
        if (is_letter(c)) return st->state = S_IDENT, 0;
        if (is_digit(c)) return st->state = S_INT, 1;
        if (c == '"') return st->state = S_STR, 2;
        if (c == '/') return st->state = S_SLASH, 3;
        if (is_op(c)) return st->state = S_OP, st->op = c, 4;
        if (c == '.') return st->state = S_FRAC, 5;
        return c > ' ' ? 7 : 6;
    case S_IDENT:
        if (is_letter(c) || is_digit(c)) return 8;
        return st->state = S_START, *adv = 0, 9;
    case S_INT:
        if (is_digit(c)) return 10;
        if (c == '.') return st->state = S_FRAC, 11;
        if (c == 'e' || c == 'E') return st->state = S_EXP, 12;
        return st->state = S_START, *adv = 0, 13;
    case S_FRAC:
        if (is_digit(c)) return 14;
        if (c == 'e' || c == 'E') return st->state = S_EXP, 15;
        return st->state = S_START, *adv = 0, 16;
    case S_EXP:
        if (c == '+' || c == '-') return st->state = S_EXP_SIGN, 17;
        if (is_digit(c)) return st->state = S_EXP_DIG, 18;
        return st->state = S_START, *adv = 0, 19;
    case S_EXP_SIGN:
        if (is_digit(c)) return st->state = S_EXP_DIG, 20;
        return st->state = S_START, *adv = 0, 21;
    case S_EXP_DIG:
        if (is_digit(c)) return 22;
        return st->state = S_START, *adv = 0, 23;
    case S_STR:
        if (c == '"') return st->state = S_START, 24;
        if (c == '\\') return st->state = S_STR_ESC, 25;
        if (c == '\n') return st->state = S_START, 26;
        return 27;
    case S_STR_ESC:
        st->state = S_STR;
        return strchr("ntr0\\\"", (int)c) && c ? 28 : 29;
    case S_SLASH:
        if (c == '/') return st->state = S_LINE_COMMENT, 30;
        if (c == '*') return st->state = S_BLOCK_COMMENT, 31;
        if (c == '=') return st->state = S_START, 32;
        return st->state = S_START, *adv = 0, 33;
    case S_LINE_COMMENT:
        if (c == '\n') return st->state = S_START, 34;
        return 35;
    case S_BLOCK_COMMENT:
        if (c == '*') return st->state = S_BLOCK_STAR, 36;
        return 37;
    case S_BLOCK_STAR:
        if (c == '/') return st->state = S_START, 38;
        if (c == '*') return 39;
        return st->state = S_BLOCK_COMMENT, 40;
    default: /* S_OP */
        if (c == '=' && st->op != '&' && st->op != '|') return st->state = S_START, 41;
        if (c == st->op && (c == '+' || c == '-' || c == '&' || c == '|')) return st->state = S_START, 41;
        return st->state = S_START, *adv = 0, 42;
    }
}

/* Bodies the earlier lanes take at each iteration. */
typedef struct {
    uint64_t body[MAX_STEPS];
} warp_use;

static int gain(const warp_use *u, int step, int body)
{
    if (step >= MAX_STEPS) return 0;
    uint64_t b = u->body[step];
    if (b >> body & 1) return 0;
    int g = body_cost[body];
    int same_state = 0;
    for (int k = 0; k < NBODY; k++)
        if ((b >> k & 1) && body_state[k] == body_state[body]) same_state = 1;
    return g + (same_state ? 0 : STATE_COST);
}

/* Feed character c; add the gains of the iterations it takes. */
static int feed(const warp_use *u, lex_state *st, int *step, unsigned c, uint64_t *taken)
{
    int g = 0, adv = 0;
    while (!adv) {
        int b = lex_step(st, c, &adv);
        g += gain(u, *step, b);
        if (taken && *step < MAX_STEPS) taken[*step] |= 1ULL << b;
        (*step)++;
    }
    return g;
}

static const char cands[] = "ae0.5\"\\/*\n +-=&#nx";
#define NCAND ((int)sizeof cands - 1)

static int lookahead(const warp_use *u, lex_state st, int step, int pos, int depth)
{
    if (depth == 0 || pos > LEN) return 0;
    int best = 0;
    for (int k = 0; k < (pos < LEN ? NCAND : 1); k++) {
        lex_state s2 = st;
        int st2 = step;
        int g = feed(u, &s2, &st2, pos < LEN ? (unsigned char)cands[k] : ' ', NULL);
        g += lookahead(u, s2, st2, pos + 1, depth - 1);
        if (g > best) best = g;
    }
    return best;
}

static bool greedy_divergent(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t threads = corpus_var(img, "threads");
    unsigned char line[32][LEN];
    warp_use u;
    memset(&u, 0, sizeof u);
    for (int l = 0; l < 32; l++) {
        lex_state st = { S_START, 0 };
        int step = 0;
        for (int pos = 0; pos < LEN; pos++) {
            int best = -1, bk = 0;
            for (int k = 0; k < NCAND; k++) {
                lex_state s2 = st;
                int st2 = step;
                int g = feed(&u, &s2, &st2, (unsigned char)cands[k], NULL);
                g = g * 4 + lookahead(&u, s2, st2, pos + 1, 2) * 3;
                if (g > best) best = g, bk = k;
            }
            line[l][pos] = (unsigned char)cands[bk];
            feed(&u, &st, &step, line[l][pos], NULL);
        }
        /* commit the lane's bodies */
        lex_state st2 = { S_START, 0 };
        int s2 = 0;
        uint64_t taken[MAX_STEPS] = { 0 };
        for (int pos = 0; pos <= LEN; pos++)
            feed(&u, &st2, &s2, pos < LEN ? line[l][pos] : ' ', taken);
        for (int s = 0; s < MAX_STEPS; s++)
            u.body[s] |= taken[s];
    }
    for (int64_t t = 0; t < threads; t++)
        for (int p = 0; p < LEN; p++)
            if (!corpus_set_int(img, "text", NULL, (uint64_t)(t * LEN + p), line[t % 32][p], err))
                return false;
    return true;
}

static bool fill_pattern(wh_image *img, const char *pat, bool rotate, wh_error *err)
{
    int64_t threads = corpus_var(img, "threads");
    size_t n = strlen(pat);
    for (int64_t t = 0; t < threads; t++)
        for (int p = 0; p < LEN; p++) {
            size_t at = ((size_t)p + (rotate ? (size_t)(t % 32) : 0)) % n;
            if (!corpus_set_int(img, "text", NULL, (uint64_t)(t * LEN + p), (unsigned char)pat[at], err))
                return false;
        }
    return true;
}

static bool float_exp_uniform(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return fill_pattern(img, "9.5e-38 ", false, err);
}

static bool rotated_mix(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return fill_pattern(img, "x1=3.5e-7+\"a\\n\"/*c*/while&&y//\n", true, err);
}

static bool line_comment(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return fill_pattern(img, "//aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false, err);
}

const corpus_kernel corpus_fsm_lexer = {
    .name = "fsm_lexer",
    .family = "automaton",
    .worst = { { "greedy-divergent", greedy_divergent }, { "float-exp-uniform", float_exp_uniform },
               { "rotated-mix", rotated_mix } },
    .best = { "line-comment", line_comment },
    .quick = false,
};

/*
 * README.md's table of SHOAL_* variables is the one the environment table
 * (runtime/base/shoal_env.h) prints: this test fails when they differ.
 *
 *   test_env_readme [FILE]          compare FILE (default
 *                                   $SHOAL_TEST_SRCDIR/README.md) with the table
 *   test_env_readme --print         print the table in Markdown
 *   test_env_readme --update FILE   rewrite FILE's table from it
 *
 * The table in FILE: the line "| variable | default | meaning |" and the
 * lines starting with '|' after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/shoal_env.h"

static const char header[] = "| variable | default | meaning |\n";

/* The whole of a stream, NUL-terminated; NULL on error. */
static char *slurp(FILE *f)
{
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);

    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (ferror(f)) break;
        if (len + 1 < cap) {
            buf[len] = '\0';
            return buf;
        }
        char *more = realloc(buf, cap *= 2);
        if (more == NULL) break;
        buf = more;
    }
    free(buf);
    return NULL;
}

static char *table_text(void)
{
    FILE *f = tmpfile();
    char *text;

    if (f == NULL) return NULL;
    shoal__env_markdown(f);
    rewind(f);
    text = slurp(f);
    fclose(f);
    return text;
}

/* Where the table is in text: its first character and one past its end. */
static int find_table(const char *text, const char **start_p, const char **end_p)
{
    const char *start = text, *end;

    while ((start = strstr(start, header)) != NULL && start != text && start[-1] != '\n') start++;
    if (start == NULL) return -1;
    end = start;
    while (*end == '|') {
        const char *nl = strchr(end, '\n');
        end = nl ? nl + 1 : end + strlen(end);
    }
    *start_p = start;
    *end_p = end;
    return 0;
}

int main(int argc, char **argv)
{
    const char *srcdir = getenv("SHOAL_TEST_SRCDIR"), *start, *end;
    char *table = table_text(), *text, path[4096];
    FILE *f;
    int update = argc == 3 && strcmp(argv[1], "--update") == 0;

    if (table == NULL) {
        perror("test_env_readme: a temporary file");
        return 1;
    }
    if (argc == 2 && strcmp(argv[1], "--print") == 0) {
        fputs(table, stdout);
        int rc = fflush(stdout) == 0 ? 0 : 1;
        free(table);
        return rc;
    }
    if (argc == 2 && argv[1][0] != '-') {
        snprintf(path, sizeof(path), "%s", argv[1]);
    } else if (update) {
        snprintf(path, sizeof(path), "%s", argv[2]);
    } else if (argc == 1 && srcdir != NULL) {
        snprintf(path, sizeof(path), "%s/README.md", srcdir);
    } else {
        fprintf(stderr,
                "usage: %s [README.md] | --print | --update README.md (without a file: "
                "$SHOAL_TEST_SRCDIR/README.md)\n",
                argv[0]);
        return 2;
    }
    f = fopen(path, "r");
    text = f ? slurp(f) : NULL;
    if (f) fclose(f);
    if (text == NULL) {
        perror(path);
        return 1;
    }
    if (find_table(text, &start, &end) != 0) {
        fprintf(stderr, "%s: no line \"%.*s\" starts a table of the variables\n", path, (int)strlen(header) - 1,
                header);
        return 1;
    }
    if (update) {
        f = fopen(path, "w");
        if (f == NULL || fprintf(f, "%.*s%s%s", (int)(start - text), text, table, end) < 0 || fclose(f) != 0) {
            perror(path);
            return 1;
        }
        printf("%s: the table of variables rewritten\n", path);
        free(text);
        free(table);
        return 0;
    }
    if ((size_t)(end - start) == strlen(table) && memcmp(start, table, strlen(table)) == 0) {
        printf("%s: the table of variables is the environment table's\n", path);
        free(text);
        free(table);
        return 0;
    }
    /* The first line that differs, and how to mend it. */
    for (const char *a = start, *b = table;;) {
        int la = a < end ? (int)strcspn(a, "\n") : -1, lb = *b ? (int)strcspn(b, "\n") : -1;
        if (la < 0 && lb < 0) {
            fprintf(stderr, "%s: the table of variables ends without a newline\n", path);
            break;
        }
        if (la != lb || memcmp(a, b, (size_t)la) != 0) {
            fprintf(stderr, "%s: the table of variables differs from runtime/base/shoal_env.h's:\n", path);
            fprintf(stderr, "  README.md: %.*s\n", la < 0 ? 5 : la, la < 0 ? "(end)" : a);
            fprintf(stderr, "  the table: %.*s\n", lb < 0 ? 5 : lb, lb < 0 ? "(end)" : b);
            break;
        }
        a += la + 1;
        b += lb + 1;
    }
    fprintf(stderr, "Edit the docs in runtime/base/shoal_env.h, then rewrite README.md's table with\n"
                    "  build/tests/test_env_readme --update README.md\n");
    return 1;
}

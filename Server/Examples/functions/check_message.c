/*
 * beforeSave for Message records: a title of 1 to 100 characters and a
 * priority from 0 to 5, or the write is refused; an accepted message gets a
 * titleLength field the server adds before saving.
 *
 * clang --target=wasm32 -nostdlib -fno-builtin -O2 -Wl,--no-entry -o check_message.wasm check_message.c
 */
#include "stratus.h"

STRATUS_EXPORT(before_save) void before_save(void) {
    const char *input = stratus_read_input();
    int title = stratus_string_field_length(input, "title");
    if (title < 1 || title > 100) {
        stratus_refuse("BAD_REQUEST", "a message needs a title of 1 to 100 characters");
        return;
    }
    long long priority;
    if (!stratus_integer_field(input, "priority", &priority) || priority < 0 || priority > 5) {
        stratus_refuse("BAD_REQUEST", "a message needs a priority from 0 to 5");
        return;
    }
    stratus_text answer = {0};
    stratus_append(&answer, "{\"fields\":{\"titleLength\":{\"value\":");
    stratus_append_integer(&answer, title);
    stratus_append(&answer, "}}}");
    stratus_output(answer.bytes, answer.length);
}

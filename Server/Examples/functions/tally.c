/*
 * A scheduled function: each run saves a Tick record named after the time it
 * stands for, with how many runs it stands for (more than one after runs were
 * missed). Bind it with the trigger schedule and a role that may create Tick
 * records, then name it in a job.
 *
 * clang --target=wasm32 -nostdlib -fno-builtin -O2 -Wl,--no-entry -o tally.wasm tally.c
 */
#include "stratus.h"

STRATUS_EXPORT(scheduled) void scheduled(void) {
    const char *input = stratus_read_input();
    char *time = stratus_string_after(input, "scheduledFor");
    const char *missed = stratus_find(input, "\"missedRuns\":");
    if (!time || !missed) { stratus_refuse("BAD_REQUEST", "not a scheduled run"); return; }
    missed += 13;
    stratus_text request = {0};
    stratus_append(&request, "{\"path\":\"records/modify\",\"body\":{\"operations\":[{\"operationType\":\"create\",\"record\":{");
    stratus_append(&request, "\"recordName\":\"tick-");
    for (const char *c = time; *c; c++) {
        char safe = (*c >= '0' && *c <= '9') ? *c : '-';
        stratus_append_bytes(&request, &safe, 1);
    }
    stratus_append(&request, "\",\"recordType\":\"Tick\",\"fields\":{\"at\":{\"value\":\"");
    stratus_append(&request, time);
    stratus_append(&request, "\"},\"missedRuns\":{\"value\":");
    stratus_append_bytes(&request, missed, stratus_json_value_length(missed));
    stratus_append(&request, "}}}}]}}");
    const char *answer = stratus_call(&request);
    if (stratus_find(answer, "serverErrorCode")) {
        stratus_log(answer, (int)stratus_strlen(answer));
        __builtin_trap();
    }
    stratus_output(answer, (int)stratus_strlen(answer));
}

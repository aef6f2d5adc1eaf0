/*
 * afterSave: for every Message created, updated or deleted, an AuditEntry
 * record in the public database saying what happened. Bind it with a role
 * that may create AuditEntry records (runAsRole). Events arrive at least once,
 * so the entry's name comes from the event's ID and forceReplace makes a
 * second delivery harmless.
 *
 * clang --target=wasm32 -nostdlib -fno-builtin -O2 -Wl,--no-entry -o audit_changes.wasm audit_changes.c
 */
#include "stratus.h"

STRATUS_EXPORT(after_save) void after_save(void) {
    const char *input = stratus_read_input();
    const char *event = stratus_find(input, "\"event\":");
    char *id = stratus_string_after(input, "eventID");
    char *type = stratus_string_after(event, "type");
    char *record = stratus_string_after(stratus_find(event, "\"record\":"), "recordName");
    if (!id || !type || !record) { stratus_log_text("not a record event"); return; }

    stratus_text request = {0};
    stratus_append(&request, "{\"path\":\"records/modify\",\"database\":\"public\",\"body\":{\"operations\":[{\"operationType\":\"forceReplace\",");
    stratus_append(&request, "\"record\":{\"recordName\":\"audit-");
    stratus_append(&request, id);
    stratus_append(&request, "\",\"recordType\":\"AuditEntry\",\"fields\":{\"about\":{\"value\":\"");
    stratus_append(&request, record);
    stratus_append(&request, "\"},\"change\":{\"value\":\"");
    stratus_append(&request, type);
    stratus_append(&request, "\"}}}}]}}");
    const char *answer = stratus_call(&request);
    if (stratus_find(answer, "serverErrorCode")) {
        /* Failing the call makes the server retry this event later. */
        stratus_log(answer, (int)stratus_strlen(answer));
        __builtin_trap();
    }
    stratus_output("{}", 2);
}

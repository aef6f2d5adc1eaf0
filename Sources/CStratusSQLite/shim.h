// The system's SQLite, for StratusLocalStore (Debian: libsqlite3-dev; Apple platforms: the SDK's).
#include <sqlite3.h>

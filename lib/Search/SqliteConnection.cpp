//===- SqliteConnection.cpp - A tuning database in a SQLite file ----------===//
//
// Part of cuda-opt. The SQLite side of the tuning database, through its C
// API: opening a file (with the checks that keep foreign files untouched),
// WAL mode and the busy timeout for concurrent writers, the schema version
// in PRAGMA user_version and our PRAGMA application_id.
//
//===----------------------------------------------------------------------===//
#include "SqlConnection.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

using namespace llvm;

namespace cuda_opt {
namespace tuningdb {

namespace {

/// How long a writer waits for another one before giving up.
constexpr int BusyTimeoutMs = 60000;

/// A prepared statement, finalized on scope exit.
class Statement : public SqlRow {
public:
  Statement(sqlite3 *Db, StringRef Sql) {
    if (sqlite3_prepare_v2(Db, Sql.data(), static_cast<int>(Sql.size()), &S,
                           nullptr) != SQLITE_OK)
      S = nullptr;
  }
  ~Statement() override { sqlite3_finalize(S); }
  explicit operator bool() const { return S != nullptr; }
  void bind(int I, const SqlParam &P) {
    switch (P.K) {
    case SqlParam::Kind::Text:
      sqlite3_bind_text(S, I, P.Text.data(), static_cast<int>(P.Text.size()),
                        SQLITE_TRANSIENT);
      return;
    case SqlParam::Kind::Integer:
      sqlite3_bind_int64(S, I, P.Integer);
      return;
    case SqlParam::Kind::Real:
      sqlite3_bind_double(S, I, P.Real);
      return;
    }
  }
  int step() { return sqlite3_step(S); }
  std::string text(int I) const override {
    const unsigned char *T = sqlite3_column_text(S, I);
    return T ? reinterpret_cast<const char *>(T) : "";
  }
  double real(int I) const override { return sqlite3_column_double(S, I); }
  int64_t integer(int I) const override { return sqlite3_column_int64(S, I); }

private:
  sqlite3_stmt *S = nullptr;
};

/// One integer from a one-row query (PRAGMA application_id, ...).
std::optional<int64_t> queryInt(sqlite3 *Db, StringRef Sql) {
  Statement S(Db, Sql);
  if (!S || S.step() != SQLITE_ROW)
    return std::nullopt;
  return S.integer(0);
}

/// The names in sqlite_master that are not SQLite's own.
std::optional<std::vector<std::string>> schemaNames(sqlite3 *Db) {
  Statement S(Db, "SELECT name FROM sqlite_master WHERE name NOT LIKE "
                  "'sqlite_%' ORDER BY name");
  if (!S)
    return std::nullopt;
  std::vector<std::string> Names;
  int RC;
  while ((RC = S.step()) == SQLITE_ROW)
    Names.push_back(S.text(0));
  if (RC != SQLITE_DONE)
    return std::nullopt;
  return Names;
}

/// The first bytes of \p Path: a SQLite file starts with
/// "SQLite format 3\0"; an empty file (one another process has just created,
/// say) is an empty database.
Error checkHeader(StringRef Path) {
  uint64_t Size = 0;
  if (std::error_code EC = sys::fs::file_size(Path, Size))
    return createStringError(EC, "cannot read '%s': %s", Path.str().c_str(),
                             EC.message().c_str());
  if (Size == 0)
    return Error::success();
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFileSlice(
      Path, std::min<uint64_t>(Size, 100), 0, /*IsVolatile=*/true);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read '%s': %s",
                             Path.str().c_str(),
                             Buf.getError().message().c_str());
  if (!(*Buf)->getBuffer().starts_with(StringRef("SQLite format 3\0", 16)))
    return notATuningDatabase(Path, "not a SQLite file");
  return Error::success();
}

class SqliteConnection : public SqlConnection {
public:
  SqliteConnection(StringRef Path, sqlite3 *Db)
      : SqlConnection(Path.str()), Db(Db) {}
  ~SqliteConnection() override { sqlite3_close(Db); }

  SchemaTypes schemaTypes() const override {
    return {"INTEGER PRIMARY KEY", "INTEGER", "REAL"};
  }

  Error script(StringRef Sql, StringRef What) override {
    if (exec(Sql.str().c_str()) != SQLITE_OK)
      return failure(What, sqlite3_errmsg(Db));
    return Error::success();
  }

  Expected<int64_t> run(StringRef Sql, ArrayRef<SqlParam> Params,
                        function_ref<void(const SqlRow &)> OnRow,
                        StringRef What) override {
    Statement S(Db, Sql);
    if (!S)
      return failure(What, sqlite3_errmsg(Db));
    for (size_t I = 0; I < Params.size(); ++I)
      S.bind(static_cast<int>(I + 1), Params[I]);
    // Outside an explicit transaction a statement is its own one: an
    // insert is committed (and durable against a killed process) when
    // step() returns.
    int RC;
    while ((RC = S.step()) == SQLITE_ROW)
      if (OnRow)
        OnRow(S);
    if (RC != SQLITE_DONE)
      return failure(What, sqlite3_errmsg(Db));
    return static_cast<int64_t>(sqlite3_changes(Db));
  }

  Expected<SchemaState> readSchema(bool InTransaction) override {
    // One read transaction, so that the three reads see one state of a file
    // another process may be creating the schema of.
    if (!InTransaction)
      exec("BEGIN");
    std::optional<int64_t> App = queryInt(Db, "PRAGMA application_id");
    std::optional<int64_t> Version = queryInt(Db, "PRAGMA user_version");
    std::optional<std::vector<std::string>> Names = schemaNames(Db);
    if (!InTransaction)
      exec("COMMIT");
    if (!App || !Version || !Names) {
      int Code = sqlite3_errcode(Db);
      if (Code == SQLITE_NOTADB || Code == SQLITE_CORRUPT)
        return notATuningDatabase(location(), sqlite3_errmsg(Db));
      return failure("cannot read its schema", sqlite3_errmsg(Db));
    }
    SchemaState St;
    if (*App != ApplicationId && !Names->empty()) {
      St.Foreign =
          "it holds tables of another application: " + join(*Names, ", ");
      return St;
    }
    St.Version = *App == ApplicationId ? static_cast<int>(*Version) : 0;
    return St;
  }

  Error prepareForWrites() override {
    // Several writers at once: WAL lets readers go on while one writes. The
    // mode is stored in the file, so only the first open changes it; a
    // concurrent first open may find the file busy for a moment.
    for (int Try = 0;; ++Try) {
      Statement S(Db, "PRAGMA journal_mode=WAL");
      if (S && S.step() == SQLITE_ROW)
        break;
      if (Try == 200)
        return failure("cannot switch it to WAL mode", sqlite3_errmsg(Db));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Committed transactions survive a killed process in WAL mode with
    // NORMAL (only a power loss may lose the last ones).
    exec("PRAGMA synchronous=NORMAL");
    return Error::success();
  }

  Error beginSchemaChange() override {
    if (exec("BEGIN IMMEDIATE") != SQLITE_OK)
      return failure("cannot lock it to create the schema", sqlite3_errmsg(Db));
    return Error::success();
  }

  Error commitSchemaChange(int Version) override {
    std::string Pragmas = formatv("PRAGMA application_id = {0}; "
                                  "PRAGMA user_version = {1};",
                                  ApplicationId, Version);
    if (exec(Pragmas.c_str()) != SQLITE_OK)
      return failure("setting the schema version", sqlite3_errmsg(Db));
    if (exec("COMMIT") != SQLITE_OK)
      return failure("committing the schema", sqlite3_errmsg(Db));
    return Error::success();
  }

  void rollback() override { exec("ROLLBACK"); }

private:
  int exec(const char *Sql) {
    return sqlite3_exec(Db, Sql, nullptr, nullptr, nullptr);
  }
  sqlite3 *Db;
};

} // namespace

Expected<std::unique_ptr<SqlConnection>> openSqlite(StringRef Path,
                                                    bool MayCreate) {
  bool Exists = sys::fs::exists(Path);
  if (!Exists && !MayCreate)
    return createStringError(inconvertibleErrorCode(),
                             "no tuning database at '%s'", Path.str().c_str());
  if (Exists) {
    if (sys::fs::is_directory(Path))
      return notATuningDatabase(Path, "a directory");
    if (Error E = checkHeader(Path))
      return std::move(E);
  } else if (StringRef Dir = sys::path::parent_path(Path); !Dir.empty()) {
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return createStringError(EC, "cannot create the directory of '%s': %s",
                               Path.str().c_str(), EC.message().c_str());
  }
  sqlite3 *Db = nullptr;
  int Flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX |
              (Exists ? 0 : SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(Path.str().c_str(), &Db, Flags, nullptr) != SQLITE_OK) {
    Error E = createStringError(
        inconvertibleErrorCode(), "cannot open the tuning database '%s': %s",
        Path.str().c_str(), Db ? sqlite3_errmsg(Db) : "out of memory");
    sqlite3_close(Db);
    return std::move(E);
  }
  sqlite3_busy_timeout(Db, BusyTimeoutMs);
  return std::make_unique<SqliteConnection>(Path, Db);
}

} // namespace tuningdb
} // namespace cuda_opt

//===- TuningDatabase.cpp - Every measured variant, kept ------------------===//
//
// Part of cuda-opt. The SQLite side of the tuning database: opening (with
// the checks that keep foreign files untouched), the versioned schema and
// its migrations, one transaction per measurement, and the JSON Lines form
// of a row that `cuda-opt db export/import` use.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/TuningDatabase.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace cuda_opt {

namespace {

/// PRAGMA application_id of our files: "CuOp".
constexpr int ApplicationId = 0x43754f70;

/// How long a writer waits for another one before giving up.
constexpr int BusyTimeoutMs = 60000;

/// One step of the schema: applied in order to bring a file from
/// Version - 1 to Version, recorded in cuda_opt_migrations.
struct Migration {
  int Version;
  const char *Description;
  const char *Sql;
};

const Migration Migrations[] = {
    {1,
     "measurements keyed by GPU, versions, kernel hash, signature, "
     "fp-model and pipeline",
     R"sql(
CREATE TABLE cuda_opt_migrations(
  version INTEGER PRIMARY KEY,
  description TEXT NOT NULL,
  applied_at TEXT NOT NULL);
CREATE TABLE measurements(
  id INTEGER PRIMARY KEY,
  gpu_model TEXT NOT NULL,
  sm_count INTEGER NOT NULL,
  driver_version TEXT NOT NULL,
  cuda_version TEXT NOT NULL,
  cuda_opt_version TEXT NOT NULL,
  kernel_hash TEXT NOT NULL,
  kernel_name TEXT NOT NULL,
  signature TEXT NOT NULL,
  fp_model TEXT NOT NULL,
  pipeline TEXT NOT NULL,
  median_ms REAL NOT NULL,
  p10_ms REAL NOT NULL,
  p90_ms REAL NOT NULL,
  runs INTEGER NOT NULL,
  verdict TEXT NOT NULL,
  failure_reason TEXT NOT NULL,
  host TEXT NOT NULL,
  measured_at TEXT NOT NULL,
  source_file TEXT NOT NULL,
  UNIQUE(gpu_model, sm_count, driver_version, cuda_version, cuda_opt_version,
         kernel_hash, signature, fp_model, pipeline, host, measured_at));
CREATE INDEX measurements_by_kernel ON measurements(kernel_hash, gpu_model);
)sql"},
};

int latestVersion() { return Migrations[std::size(Migrations) - 1].Version; }

Error notOurs(StringRef Path, const Twine &Why) {
  return createStringError(inconvertibleErrorCode(),
                           "'%s' is not a cuda-opt tuning database (%s)",
                           Path.str().c_str(), Why.str().c_str());
}

Error sqliteError(sqlite3 *Db, StringRef Path, StringRef What) {
  return createStringError(inconvertibleErrorCode(),
                           "tuning database '%s': %s: %s", Path.str().c_str(),
                           What.str().c_str(), sqlite3_errmsg(Db));
}

/// A prepared statement, finalized on scope exit.
class Statement {
public:
  Statement(sqlite3 *Db, StringRef Sql) {
    if (sqlite3_prepare_v2(Db, Sql.data(), static_cast<int>(Sql.size()), &S,
                           nullptr) != SQLITE_OK)
      S = nullptr;
  }
  ~Statement() { sqlite3_finalize(S); }
  explicit operator bool() const { return S != nullptr; }
  sqlite3_stmt *get() const { return S; }
  void bind(int I, StringRef V) {
    sqlite3_bind_text(S, I, V.data(), static_cast<int>(V.size()),
                      SQLITE_TRANSIENT);
  }
  void bind(int I, double V) { sqlite3_bind_double(S, I, V); }
  void bind(int I, int64_t V) { sqlite3_bind_int64(S, I, V); }
  int step() { return sqlite3_step(S); }
  std::string text(int I) const {
    const unsigned char *T = sqlite3_column_text(S, I);
    return T ? reinterpret_cast<const char *>(T) : "";
  }
  double real(int I) const { return sqlite3_column_double(S, I); }
  int64_t integer(int I) const { return sqlite3_column_int64(S, I); }

private:
  sqlite3_stmt *S = nullptr;
};

/// Run \p Sql (no results); SQLITE_BUSY past the timeout is an error.
int exec(sqlite3 *Db, const char *Sql) {
  return sqlite3_exec(Db, Sql, nullptr, nullptr, nullptr);
}

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
    return notOurs(Path, "not a SQLite file");
  return Error::success();
}

/// Bring the file to the latest schema, in one write transaction; the
/// state is read again under the lock (another process may have done it).
Error migrate(sqlite3 *Db, StringRef Path) {
  if (exec(Db, "BEGIN IMMEDIATE") != SQLITE_OK)
    return sqliteError(Db, Path, "cannot lock it to create the schema");
  auto Rollback = [&](Error E) {
    exec(Db, "ROLLBACK");
    return E;
  };
  std::optional<int64_t> App = queryInt(Db, "PRAGMA application_id");
  std::optional<int64_t> Version = queryInt(Db, "PRAGMA user_version");
  std::optional<std::vector<std::string>> Names = schemaNames(Db);
  if (!App || !Version || !Names)
    return Rollback(sqliteError(Db, Path, "cannot read its schema"));
  if (*App != ApplicationId && !Names->empty())
    return Rollback(notOurs(Path, "it holds tables of another application"));
  for (const Migration &M : Migrations) {
    if (M.Version <= *Version)
      continue;
    if (exec(Db, M.Sql) != SQLITE_OK)
      return Rollback(sqliteError(
          Db, Path,
          formatv("schema migration to version {0}", M.Version).str()));
    Statement Note(Db, "INSERT INTO cuda_opt_migrations(version, description, "
                       "applied_at) VALUES(?1, ?2, ?3)");
    Note.bind(1, static_cast<int64_t>(M.Version));
    Note.bind(2, StringRef(M.Description));
    Note.bind(3, tuningTimestamp());
    if (Note.step() != SQLITE_DONE)
      return Rollback(sqliteError(Db, Path, "recording a migration"));
  }
  std::string Pragmas = formatv("PRAGMA application_id = {0}; "
                                "PRAGMA user_version = {1};",
                                ApplicationId, latestVersion());
  if (exec(Db, Pragmas.c_str()) != SQLITE_OK)
    return Rollback(sqliteError(Db, Path, "setting the schema version"));
  if (exec(Db, "COMMIT") != SQLITE_OK)
    return Rollback(sqliteError(Db, Path, "committing the schema"));
  return Error::success();
}

constexpr const char *RecordColumns =
    "gpu_model, sm_count, driver_version, cuda_version, cuda_opt_version, "
    "kernel_hash, kernel_name, signature, fp_model, pipeline, median_ms, "
    "p10_ms, p90_ms, runs, verdict, failure_reason, host, measured_at, "
    "source_file";

TuningRecord readRecord(const Statement &S) {
  TuningRecord R;
  R.Key.Gpu.Model = S.text(0);
  R.Key.Gpu.SmCount = S.integer(1);
  R.Key.Gpu.Driver = S.text(2);
  R.Key.Gpu.Cuda = S.text(3);
  R.Key.ToolVersion = S.text(4);
  R.Key.KernelHash = S.text(5);
  R.KernelName = S.text(6);
  R.Key.Signature = S.text(7);
  R.Key.FpModel = S.text(8);
  R.Key.Pipeline = S.text(9);
  R.MedianMs = S.real(10);
  R.P10Ms = S.real(11);
  R.P90Ms = S.real(12);
  R.Runs = S.integer(13);
  R.Verdict = S.text(14);
  R.FailureReason = S.text(15);
  R.Host = S.text(16);
  R.MeasuredAt = S.text(17);
  R.SourceFile = S.text(18);
  return R;
}

} // namespace

int TuningDatabase::currentSchemaVersion() { return latestVersion(); }

Expected<std::unique_ptr<TuningDatabase>> TuningDatabase::open(StringRef Path,
                                                               OpenMode Mode) {
  if (Error E = checkTuningDatabaseLocation(Path))
    return std::move(E);
  bool Exists = sys::fs::exists(Path);
  if (!Exists && Mode == OpenMode::Existing)
    return createStringError(inconvertibleErrorCode(),
                             "no tuning database at '%s'", Path.str().c_str());
  if (Exists) {
    if (sys::fs::is_directory(Path))
      return notOurs(Path, "a directory");
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
  std::unique_ptr<TuningDatabase> T(new TuningDatabase(Path.str(), Db));
  sqlite3_busy_timeout(Db, BusyTimeoutMs);

  // Read-only checks first: a file that is not ours is never written. One
  // read transaction, so that the three reads see one state of a file
  // another process may be creating the schema of.
  exec(Db, "BEGIN");
  std::optional<int64_t> App = queryInt(Db, "PRAGMA application_id");
  std::optional<int64_t> Version = queryInt(Db, "PRAGMA user_version");
  std::optional<std::vector<std::string>> Names = schemaNames(Db);
  exec(Db, "COMMIT");
  if (!App || !Version || !Names) {
    int Code = sqlite3_errcode(Db);
    if (Code == SQLITE_NOTADB || Code == SQLITE_CORRUPT)
      return notOurs(Path, sqlite3_errmsg(Db));
    return sqliteError(Db, Path, "cannot read its schema");
  }
  if (*App != ApplicationId && !Names->empty())
    return notOurs(Path, "it holds tables of another application: " +
                             join(*Names, ", "));
  if (*Version > latestVersion())
    return createStringError(
        inconvertibleErrorCode(),
        "tuning database '%s' has schema version %d; this cuda-opt knows up "
        "to %d (use a newer cuda-opt)",
        Path.str().c_str(), static_cast<int>(*Version), latestVersion());

  // Several writers at once: WAL lets readers go on while one writes. The
  // mode is stored in the file, so only the first open changes it; a
  // concurrent first open may find the file busy for a moment.
  for (int Try = 0;; ++Try) {
    Statement S(Db, "PRAGMA journal_mode=WAL");
    if (S && S.step() == SQLITE_ROW)
      break;
    if (Try == 200)
      return sqliteError(Db, Path, "cannot switch it to WAL mode");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Committed transactions survive a killed process in WAL mode with
  // NORMAL (only a power loss may lose the last ones).
  exec(Db, "PRAGMA synchronous=NORMAL");
  if (*App != ApplicationId || *Version < latestVersion())
    if (Error E = migrate(Db, Path))
      return std::move(E);
  return std::move(T);
}

TuningDatabase::~TuningDatabase() { sqlite3_close(Db); }

Error TuningDatabase::add(const TuningRecord &R, bool *Inserted) {
  std::string Sql =
      formatv("INSERT OR IGNORE INTO measurements({0}) VALUES(?1, ?2, ?3, ?4, "
              "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
              "?18, ?19)",
              RecordColumns);
  Statement S(Db, Sql);
  if (!S)
    return sqliteError(Db, Path, "preparing an insert");
  S.bind(1, StringRef(R.Key.Gpu.Model));
  S.bind(2, R.Key.Gpu.SmCount);
  S.bind(3, StringRef(R.Key.Gpu.Driver));
  S.bind(4, StringRef(R.Key.Gpu.Cuda));
  S.bind(5, StringRef(R.Key.ToolVersion));
  S.bind(6, StringRef(R.Key.KernelHash));
  S.bind(7, StringRef(R.KernelName));
  S.bind(8, StringRef(R.Key.Signature));
  S.bind(9, StringRef(R.Key.FpModel));
  S.bind(10, StringRef(R.Key.Pipeline));
  S.bind(11, R.MedianMs);
  S.bind(12, R.P10Ms);
  S.bind(13, R.P90Ms);
  S.bind(14, R.Runs);
  S.bind(15, StringRef(R.Verdict));
  S.bind(16, StringRef(R.FailureReason));
  S.bind(17, StringRef(R.Host));
  S.bind(18, StringRef(R.MeasuredAt));
  S.bind(19, StringRef(R.SourceFile));
  // Outside an explicit transaction the insert is its own one: committed
  // (and durable against a killed process) when step() returns.
  if (S.step() != SQLITE_DONE)
    return sqliteError(Db, Path, "storing a measurement");
  if (Inserted)
    *Inserted = sqlite3_changes(Db) > 0;
  return Error::success();
}

Expected<std::vector<TuningRecord>>
TuningDatabase::query(const TuningFilter &F) const {
  std::string Sql = formatv("SELECT {0} FROM measurements WHERE (?1 = '' OR "
                            "kernel_hash = ?1) AND (?2 = '' OR gpu_model = ?2) "
                            "ORDER BY measured_at, id",
                            RecordColumns);
  Statement S(Db, Sql);
  if (!S)
    return sqliteError(Db, Path, "preparing a query");
  S.bind(1, StringRef(F.KernelHash));
  S.bind(2, StringRef(F.GpuModel));
  std::vector<TuningRecord> Out;
  int RC;
  while ((RC = S.step()) == SQLITE_ROW)
    Out.push_back(readRecord(S));
  if (RC != SQLITE_DONE)
    return sqliteError(Db, Path, "reading measurements");
  return Out;
}

Expected<std::optional<TuningRecord>>
TuningDatabase::lookup(const TuningKey &K) const {
  std::string Sql = formatv(
      "SELECT {0} FROM measurements WHERE gpu_model = ?1 AND sm_count = ?2 "
      "AND driver_version = ?3 AND cuda_version = ?4 AND cuda_opt_version = "
      "?5 AND kernel_hash = ?6 AND signature = ?7 AND fp_model = ?8 AND "
      "pipeline = ?9 ORDER BY measured_at DESC, id DESC LIMIT 1",
      RecordColumns);
  Statement S(Db, Sql);
  if (!S)
    return sqliteError(Db, Path, "preparing a lookup");
  S.bind(1, StringRef(K.Gpu.Model));
  S.bind(2, K.Gpu.SmCount);
  S.bind(3, StringRef(K.Gpu.Driver));
  S.bind(4, StringRef(K.Gpu.Cuda));
  S.bind(5, StringRef(K.ToolVersion));
  S.bind(6, StringRef(K.KernelHash));
  S.bind(7, StringRef(K.Signature));
  S.bind(8, StringRef(K.FpModel));
  S.bind(9, StringRef(K.Pipeline));
  int RC = S.step();
  if (RC == SQLITE_ROW)
    return std::optional<TuningRecord>(readRecord(S));
  if (RC != SQLITE_DONE)
    return sqliteError(Db, Path, "looking up a measurement");
  return std::optional<TuningRecord>();
}

Expected<std::vector<std::string>> TuningDatabase::kernelNames() const {
  Statement S(Db, "SELECT DISTINCT kernel_name FROM measurements");
  if (!S)
    return sqliteError(Db, Path, "preparing a query");
  std::vector<std::string> Out;
  int RC;
  while ((RC = S.step()) == SQLITE_ROW)
    Out.push_back(S.text(0));
  if (RC != SQLITE_DONE)
    return sqliteError(Db, Path, "reading kernel names");
  return Out;
}

Expected<TuningStats> TuningDatabase::stats() const {
  Statement S(Db, "SELECT COUNT(*), COUNT(DISTINCT kernel_hash), "
                  "COUNT(DISTINCT gpu_model), "
                  "COALESCE(SUM(verdict = 'verified'), 0) FROM measurements");
  if (!S || S.step() != SQLITE_ROW)
    return sqliteError(Db, Path, "counting measurements");
  TuningStats St;
  St.Rows = S.integer(0);
  St.Kernels = S.integer(1);
  St.Gpus = S.integer(2);
  St.Verified = S.integer(3);
  St.SchemaVersion =
      static_cast<int>(queryInt(Db, "PRAGMA user_version").value_or(0));
  return St;
}

std::string TuningRecord::toJSONLine() const {
  std::string Out;
  raw_string_ostream OS(Out);
  json::OStream J(OS);
  J.object([&] {
    J.attribute("gpu", Key.Gpu.Model);
    J.attribute("sm_count", Key.Gpu.SmCount);
    J.attribute("driver", Key.Gpu.Driver);
    J.attribute("cuda", Key.Gpu.Cuda);
    J.attribute("cuda_opt", Key.ToolVersion);
    J.attribute("kernel_hash", Key.KernelHash);
    J.attribute("kernel", KernelName);
    J.attribute("signature", Key.Signature);
    J.attribute("fp_model", Key.FpModel);
    J.attribute("pipeline", Key.Pipeline);
    J.attribute("median_ms", MedianMs);
    J.attribute("p10_ms", P10Ms);
    J.attribute("p90_ms", P90Ms);
    J.attribute("runs", Runs);
    J.attribute("verdict", Verdict);
    J.attribute("failure", FailureReason);
    J.attribute("host", Host);
    J.attribute("measured_at", MeasuredAt);
    J.attribute("source", SourceFile);
  });
  return Out;
}

Expected<TuningRecord> TuningRecord::fromJSON(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return createStringError(inconvertibleErrorCode(),
                             "a measurement is a JSON object");
  auto Missing = [](StringRef Key, StringRef Type) {
    return createStringError(inconvertibleErrorCode(),
                             "\"%s\" is missing or not %s", Key.str().c_str(),
                             Type.str().c_str());
  };
  TuningRecord R;
  struct TextField {
    const char *Key;
    std::string *Into;
    bool Required;
  } Texts[] = {{"gpu", &R.Key.Gpu.Model, true},
               {"driver", &R.Key.Gpu.Driver, true},
               {"cuda", &R.Key.Gpu.Cuda, true},
               {"cuda_opt", &R.Key.ToolVersion, true},
               {"kernel_hash", &R.Key.KernelHash, true},
               {"kernel", &R.KernelName, false},
               {"signature", &R.Key.Signature, true},
               {"fp_model", &R.Key.FpModel, true},
               {"pipeline", &R.Key.Pipeline, true},
               {"verdict", &R.Verdict, true},
               {"failure", &R.FailureReason, false},
               {"host", &R.Host, true},
               {"measured_at", &R.MeasuredAt, true},
               {"source", &R.SourceFile, false}};
  for (const TextField &F : Texts) {
    std::optional<StringRef> S = O->getString(F.Key);
    if (!S) {
      if (F.Required || O->get(F.Key))
        return Missing(F.Key, "a string");
      continue;
    }
    *F.Into = S->str();
  }
  struct NumberField {
    const char *Key;
    double *Into;
  } Numbers[] = {
      {"median_ms", &R.MedianMs}, {"p10_ms", &R.P10Ms}, {"p90_ms", &R.P90Ms}};
  for (const NumberField &F : Numbers) {
    std::optional<double> D = O->getNumber(F.Key);
    if (!D)
      return Missing(F.Key, "a number");
    *F.Into = *D;
  }
  std::optional<int64_t> Sm = O->getInteger("sm_count");
  if (!Sm)
    return Missing("sm_count", "an integer");
  R.Key.Gpu.SmCount = *Sm;
  std::optional<int64_t> Runs = O->getInteger("runs");
  if (!Runs)
    return Missing("runs", "an integer");
  R.Runs = *Runs;
  if (R.Key.KernelHash.empty())
    return createStringError(inconvertibleErrorCode(),
                             "\"kernel_hash\" is empty");
  if (R.Key.FpModel != "strict" && R.Key.FpModel != "reassoc" &&
      R.Key.FpModel != "fast")
    return createStringError(inconvertibleErrorCode(),
                             "\"fp_model\" must be strict, reassoc or fast, "
                             "not '%s'",
                             R.Key.FpModel.c_str());
  static const char *Verdicts[] = {"verified", "slower", "rejected",
                                   "compile-error"};
  if (!llvm::is_contained(Verdicts, StringRef(R.Verdict)))
    return createStringError(inconvertibleErrorCode(),
                             "\"verdict\" must be verified, slower, rejected "
                             "or compile-error, not '%s'",
                             R.Verdict.c_str());
  return R;
}

bool defaultTuningDatabaseOff() {
  std::optional<std::string> Env = sys::Process::GetEnv("CUDA_OPT_TUNING_DB");
  return Env && *Env == "off";
}

std::string defaultTuningDatabasePath() {
  if (std::optional<std::string> Env =
          sys::Process::GetEnv("CUDA_OPT_TUNING_DB");
      Env && !Env->empty() && *Env != "off")
    return *Env;
  SmallString<256> P;
  if (std::optional<std::string> Xdg = sys::Process::GetEnv("XDG_CACHE_HOME");
      Xdg && !Xdg->empty()) {
    P = *Xdg;
  } else {
    sys::path::home_directory(P);
    sys::path::append(P, ".cache");
  }
  sys::path::append(P, "cuda-opt", "tuning.db");
  return std::string(P);
}

Error checkTuningDatabaseLocation(StringRef Location) {
  if (Location.starts_with("postgresql://") ||
      Location.starts_with("postgres://"))
    return createStringError(
        inconvertibleErrorCode(),
        "--db %s: PostgreSQL tuning databases are not supported yet; give "
        "the path of a SQLite file",
        Location.str().c_str());
  if (Location.contains("://"))
    return createStringError(inconvertibleErrorCode(),
                             "--db %s: not a file path, and no other database "
                             "URL is supported",
                             Location.str().c_str());
  return Error::success();
}

std::string tuningTimestamp() {
  auto Now = std::chrono::system_clock::now();
  std::time_t T = std::chrono::system_clock::to_time_t(Now);
  int64_t Ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   Now.time_since_epoch())
                   .count() %
               1000;
  std::tm Utc;
  gmtime_r(&T, &Utc);
  char Buf[32], Out[48];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%S", &Utc);
  std::snprintf(Out, sizeof(Out), "%s.%03dZ", Buf, static_cast<int>(Ms));
  return Out;
}

std::string tuningHostName() {
  char Buf[256] = {0};
  if (gethostname(Buf, sizeof(Buf) - 1) != 0)
    return "unknown";
  return Buf;
}

} // namespace cuda_opt

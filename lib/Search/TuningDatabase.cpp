//===- TuningDatabase.cpp - Every measured variant, kept ------------------===//
//
// Part of cuda-opt. The tuning database's SQL and logic, the same for a
// SQLite file and a PostgreSQL server (SqlConnection.h holds the two kinds
// of connection): opening (with the checks that keep foreign databases
// untouched), the versioned schema and its migrations, one transaction per
// measurement, and the JSON Lines form of a row that `cuda-opt db
// export/import` use.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/TuningDatabase.h"

#include "SqlConnection.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <unistd.h>

using namespace llvm;

namespace cuda_opt {

using tuningdb::SchemaState;
using tuningdb::SqlConnection;
using tuningdb::SqlParam;
using tuningdb::SqlRow;

namespace tuningdb {

Error SqlConnection::failure(StringRef What, StringRef Detail) const {
  return createStringError(inconvertibleErrorCode(),
                           "tuning database '%s': %s: %s", Location.c_str(),
                           What.str().c_str(), Detail.str().c_str());
}

Error notATuningDatabase(StringRef Location, const Twine &Why) {
  return createStringError(inconvertibleErrorCode(),
                           "'%s' is not a cuda-opt tuning database (%s)",
                           Location.str().c_str(), Why.str().c_str());
}

} // namespace tuningdb

namespace {

/// One step of the schema: applied in order to bring a database from
/// Version - 1 to Version, recorded in cuda_opt_migrations. In the SQL,
/// @ID@, @INT@ and @REAL@ stand for the dialect's type names
/// (SchemaTypes); the rest is the same for SQLite and PostgreSQL.
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
  version @INT@ PRIMARY KEY,
  description TEXT NOT NULL,
  applied_at TEXT NOT NULL);
CREATE TABLE measurements(
  id @ID@,
  gpu_model TEXT NOT NULL,
  sm_count @INT@ NOT NULL,
  driver_version TEXT NOT NULL,
  cuda_version TEXT NOT NULL,
  cuda_opt_version TEXT NOT NULL,
  kernel_hash TEXT NOT NULL,
  kernel_name TEXT NOT NULL,
  signature TEXT NOT NULL,
  fp_model TEXT NOT NULL,
  pipeline TEXT NOT NULL,
  median_ms @REAL@ NOT NULL,
  p10_ms @REAL@ NOT NULL,
  p90_ms @REAL@ NOT NULL,
  runs @INT@ NOT NULL,
  verdict TEXT NOT NULL,
  failure_reason TEXT NOT NULL,
  host TEXT NOT NULL,
  measured_at TEXT NOT NULL,
  source_file TEXT NOT NULL,
  UNIQUE(gpu_model, sm_count, driver_version, cuda_version, cuda_opt_version,
         kernel_hash, signature, fp_model, pipeline, host, measured_at));
CREATE INDEX measurements_by_kernel ON measurements(kernel_hash, gpu_model);
)sql"},
    {2,
     "kernel features by kernel hash, for training the learned ranker",
     R"sql(
CREATE TABLE kernel_features(
  kernel_hash TEXT PRIMARY KEY,
  kernel_name TEXT NOT NULL,
  features TEXT NOT NULL,
  recorded_at TEXT NOT NULL);
)sql"},
};

int latestVersion() { return Migrations[std::size(Migrations) - 1].Version; }

/// A migration's SQL in the dialect of \p C.
std::string migrationSql(const Migration &M, const SqlConnection &C) {
  tuningdb::SchemaTypes T = C.schemaTypes();
  std::string Sql = M.Sql;
  auto Replace = [&](StringRef From, StringRef To) {
    for (size_t P; (P = Sql.find(From.str())) != std::string::npos;)
      Sql.replace(P, From.size(), To.str());
  };
  Replace("@ID@", T.Id);
  Replace("@INT@", T.Integer);
  Replace("@REAL@", T.Real);
  return Sql;
}

/// Bring the database to the latest schema, in one write transaction that
/// locks out other writers; the state is read again under the lock
/// (another process may have done it).
Error migrate(SqlConnection &C) {
  if (Error E = C.beginSchemaChange())
    return E;
  auto Rollback = [&](Error E) {
    C.rollback();
    return E;
  };
  Expected<SchemaState> St = C.readSchema(/*InTransaction=*/true);
  if (!St)
    return Rollback(St.takeError());
  if (!St->Foreign.empty())
    return Rollback(tuningdb::notATuningDatabase(C.location(), St->Foreign));
  for (const Migration &M : Migrations) {
    if (M.Version <= St->Version)
      continue;
    if (Error E = C.script(
            migrationSql(M, C),
            formatv("schema migration to version {0}", M.Version).str()))
      return Rollback(std::move(E));
    Expected<int64_t> N = C.run(
        "INSERT INTO cuda_opt_migrations(version, description, "
        "applied_at) VALUES(?1, ?2, ?3)",
        {static_cast<int64_t>(M.Version), M.Description, tuningTimestamp()},
        nullptr, "recording a migration");
    if (!N)
      return Rollback(N.takeError());
  }
  if (Error E = C.commitSchemaChange(latestVersion()))
    return Rollback(std::move(E));
  return Error::success();
}

constexpr const char *RecordColumns =
    "gpu_model, sm_count, driver_version, cuda_version, cuda_opt_version, "
    "kernel_hash, kernel_name, signature, fp_model, pipeline, median_ms, "
    "p10_ms, p90_ms, runs, verdict, failure_reason, host, measured_at, "
    "source_file";

TuningRecord readRecord(const SqlRow &S) {
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

TuningDatabase::TuningDatabase(std::unique_ptr<SqlConnection> C)
    : Path(C->location()), Conn(std::move(C)) {}

Expected<std::unique_ptr<TuningDatabase>>
TuningDatabase::open(StringRef Location, OpenMode Mode) {
  if (Error E = checkTuningDatabaseLocation(Location))
    return std::move(E);
  Expected<std::unique_ptr<SqlConnection>> C =
      isPostgresUrl(Location)
          ? tuningdb::openPostgres(Location)
          : tuningdb::openSqlite(Location, Mode == OpenMode::Create);
  if (!C)
    return C.takeError();
  std::unique_ptr<TuningDatabase> T(new TuningDatabase(std::move(*C)));
  SqlConnection &Conn = *T->Conn;

  // Read-only checks first: a database that is not ours is never written.
  Expected<SchemaState> St = Conn.readSchema();
  if (!St)
    return St.takeError();
  if (!St->Foreign.empty())
    return tuningdb::notATuningDatabase(Conn.location(), St->Foreign);
  if (St->Version > latestVersion())
    return createStringError(
        inconvertibleErrorCode(),
        "tuning database '%s' has schema version %d; this cuda-opt knows up "
        "to %d (use a newer cuda-opt)",
        Conn.location().c_str(), St->Version, latestVersion());
  if (Error E = Conn.prepareForWrites())
    return std::move(E);
  if (St->Version < latestVersion())
    if (Error E = migrate(Conn))
      return std::move(E);
  return std::move(T);
}

TuningDatabase::~TuningDatabase() = default;

Error TuningDatabase::add(const TuningRecord &R, bool *Inserted) {
  // A measurement already stored (same key, host and time) is left alone:
  // re-imports, merges and concurrent writers never double a row. Outside
  // an explicit transaction the insert is its own one.
  std::string Sql =
      formatv("INSERT INTO measurements({0}) VALUES(?1, ?2, ?3, ?4, ?5, ?6, "
              "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19) "
              "ON CONFLICT DO NOTHING",
              RecordColumns);
  Expected<int64_t> Changed = Conn->run(
      Sql,
      {R.Key.Gpu.Model, R.Key.Gpu.SmCount, R.Key.Gpu.Driver, R.Key.Gpu.Cuda,
       R.Key.ToolVersion, R.Key.KernelHash, R.KernelName, R.Key.Signature,
       R.Key.FpModel, R.Key.Pipeline, R.MedianMs, R.P10Ms, R.P90Ms, R.Runs,
       R.Verdict, R.FailureReason, R.Host, R.MeasuredAt, R.SourceFile},
      nullptr, "storing a measurement");
  if (!Changed)
    return Changed.takeError();
  if (Inserted)
    *Inserted = *Changed > 0;
  return Error::success();
}

Expected<std::vector<TuningRecord>>
TuningDatabase::query(const TuningFilter &F) const {
  std::string Sql = formatv("SELECT {0} FROM measurements WHERE (?1 = '' OR "
                            "kernel_hash = ?1) AND (?2 = '' OR gpu_model = ?2) "
                            "ORDER BY measured_at, id",
                            RecordColumns);
  std::vector<TuningRecord> Out;
  Expected<int64_t> N = Conn->run(
      Sql, {F.KernelHash, F.GpuModel},
      [&](const SqlRow &R) { Out.push_back(readRecord(R)); },
      "reading measurements");
  if (!N)
    return N.takeError();
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
  std::optional<TuningRecord> Out;
  Expected<int64_t> N = Conn->run(
      Sql,
      {K.Gpu.Model, K.Gpu.SmCount, K.Gpu.Driver, K.Gpu.Cuda, K.ToolVersion,
       K.KernelHash, K.Signature, K.FpModel, K.Pipeline},
      [&](const SqlRow &R) { Out = readRecord(R); },
      "looking up a measurement");
  if (!N)
    return N.takeError();
  return Out;
}

Expected<std::vector<std::string>> TuningDatabase::kernelNames() const {
  std::vector<std::string> Out;
  Expected<int64_t> N = Conn->run(
      "SELECT DISTINCT kernel_name FROM measurements", {},
      [&](const SqlRow &R) { Out.push_back(R.text(0)); },
      "reading kernel names");
  if (!N)
    return N.takeError();
  return Out;
}

Error TuningDatabase::putKernelFeatures(StringRef KernelHash,
                                        StringRef KernelName,
                                        const FeatureVector &Features) {
  json::Object O;
  for (const auto &[Name, Value] : Features)
    O[Name] = Value;
  std::string Text;
  raw_string_ostream(Text) << json::Value(std::move(O));
  Expected<int64_t> N = Conn->run(
      "INSERT INTO kernel_features(kernel_hash, kernel_name, features, "
      "recorded_at) VALUES(?1, ?2, ?3, ?4) ON CONFLICT(kernel_hash) DO "
      "UPDATE SET kernel_name = excluded.kernel_name, features = "
      "excluded.features, recorded_at = excluded.recorded_at",
      {KernelHash.str(), KernelName.str(), Text, tuningTimestamp()}, nullptr,
      "storing kernel features");
  if (!N)
    return N.takeError();
  return Error::success();
}

Expected<std::map<std::string, TuningDatabase::FeatureVector>>
TuningDatabase::kernelFeatures(
    std::map<std::string, std::string> *Names) const {
  std::map<std::string, FeatureVector> Out;
  std::string Bad;
  Expected<int64_t> N = Conn->run(
      "SELECT kernel_hash, features, kernel_name FROM kernel_features ORDER "
      "BY kernel_hash",
      {},
      [&](const SqlRow &R) {
        if (Names)
          (*Names)[R.text(0)] = R.text(2);
        Expected<json::Value> V = json::parse(R.text(1));
        const json::Object *O = V ? V->getAsObject() : nullptr;
        if (!V)
          consumeError(V.takeError());
        if (!O) {
          Bad = R.text(0);
          return;
        }
        FeatureVector &F = Out[R.text(0)];
        for (const auto &[K, X] : *O)
          F.push_back({K.str(), X.getAsNumber().value_or(0)});
        llvm::sort(F);
      },
      "reading kernel features");
  if (!N)
    return N.takeError();
  if (!Bad.empty())
    return createStringError(inconvertibleErrorCode(),
                             "the stored features of kernel %s in '%s' are "
                             "not a JSON object",
                             Bad.c_str(), Path.c_str());
  return Out;
}

Expected<TuningStats> TuningDatabase::stats() const {
  TuningStats St;
  Expected<int64_t> N = Conn->run(
      "SELECT COUNT(*), COUNT(DISTINCT kernel_hash), COUNT(DISTINCT CASE "
      "WHEN verdict <> 'not-measured' THEN gpu_model END), "
      "COALESCE(SUM(CASE WHEN verdict = 'verified' THEN 1 ELSE 0 END), 0), "
      "COALESCE(SUM(CASE WHEN verdict = 'not-measured' THEN 1 ELSE 0 END), "
      "0) FROM measurements",
      {},
      [&](const SqlRow &R) {
        St.Rows = R.integer(0);
        St.Kernels = R.integer(1);
        St.Gpus = R.integer(2);
        St.Verified = R.integer(3);
        St.NotMeasured = R.integer(4);
      },
      "counting measurements");
  if (!N)
    return N.takeError();
  Expected<SchemaState> S = Conn->readSchema();
  if (!S)
    return S.takeError();
  St.SchemaVersion = S->Version;
  return St;
}

std::string TuningRecord::toJSONLine(
    const std::vector<std::pair<std::string, double>> *Features) const {
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
    if (Features)
      J.attributeObject("features", [&] {
        for (const auto &[Name, Value] : *Features)
          J.attribute(Name, Value);
      });
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
                                   "compile-error", "not-measured"};
  if (!llvm::is_contained(Verdicts, StringRef(R.Verdict)))
    return createStringError(inconvertibleErrorCode(),
                             "\"verdict\" must be verified, slower, rejected, "
                             "compile-error or not-measured, not '%s'",
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

bool isPostgresUrl(StringRef Location) {
  return Location.starts_with("postgresql://") ||
         Location.starts_with("postgres://");
}

Error checkTuningDatabaseLocation(StringRef Location) {
  if (isPostgresUrl(Location)) {
    if (!postgresSupported())
      return tuningdb::openPostgres(Location).takeError();
    return Error::success();
  }
  if (Location.contains("://"))
    return createStringError(inconvertibleErrorCode(),
                             "--db %s: not a file path, and not a PostgreSQL "
                             "URL (postgresql://USER@HOST:PORT/DATABASE); no "
                             "other database URL is supported",
                             Location.str().c_str());
  if (Location.empty())
    return createStringError(inconvertibleErrorCode(),
                             "--db: give a SQLite file's path or a PostgreSQL "
                             "URL");
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

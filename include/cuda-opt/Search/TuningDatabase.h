//===- TuningDatabase.h - Every measured variant, kept ----------*- C++ -*-===//
//
// Part of cuda-opt. The tuning database (docs/tuning-database.md): one row
// per measured variant, keyed by the GPU (model, SM count, driver, CUDA),
// the cuda-opt version, the kernel's AST hash (KernelHash.h), the problem
// signature (ProblemSignature.h), the fp-model and the pipeline; the values
// are the median and p10/p90 of the timing, the verification verdict and
// why a variant failed, the measuring host and when.
//
// A SQLite file (the default; through its C API, in WAL mode with a busy
// timeout) or a PostgreSQL server (postgresql://..., through libpq: a team's
// shared database, docs/cluster-tuning.md), with the same schema: several
// tune processes (one per GPU, or one per cluster node) may write at once;
// every measurement is committed in its own transaction, so a killed writer
// loses at most the one in flight. A file that is not SQLite, or a database
// with a schema that is not ours, is refused and never written to.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_TUNINGDATABASE_H
#define CUDA_OPT_SEARCH_TUNINGDATABASE_H

#include "cuda-opt/Support/Version.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

namespace tuningdb {
class SqlConnection;
} // namespace tuningdb

/// What a measurement was made on.
struct TuningGpu {
  std::string Model; ///< "NVIDIA H200"
  int64_t SmCount = 0;
  std::string Driver; ///< "12.8" (cuDriverGetVersion)
  std::string Cuda;   ///< The toolkit's version ("13.0.1"), or "unknown".
};

/// The key of one measurement, without where and when it was made.
struct TuningKey {
  TuningGpu Gpu;
  std::string ToolVersion = CudaOptVersion.str();
  std::string KernelHash;
  std::string Signature; ///< ProblemSignature.h
  std::string FpModel;   ///< "strict", "reassoc" or "fast"
  std::string Pipeline;  ///< "" for the original kernel
};

/// One measured variant.
struct TuningRecord {
  TuningKey Key;
  std::string KernelName; ///< For people; the hash is the key.
  std::string SourceFile; ///< For people: the file tune was given.
  double MedianMs = 0, P10Ms = 0, P90Ms = 0;
  int64_t Runs = 0;
  /// "verified", "slower" (verified; timing stopped early, its median from
  /// a few runs), "rejected" (did not verify), "compile-error", or
  /// "not-measured": a candidate a dry run listed (`tune --dry-run --db`),
  /// nothing compiled or run, its timings 0 (docs/cluster-tuning.md).
  std::string Verdict;
  std::string FailureReason;
  std::string Host;
  std::string MeasuredAt; ///< UTC, ISO 8601 with milliseconds.

  bool verified() const { return Verdict == "verified"; }
  bool measured() const { return Verdict != "not-measured"; }

  /// One JSON Lines object, keys in a fixed order (docs/tuning-database.md);
  /// with \p Features, its kernel's feature vector as a last key,
  /// "features" (what `db import` stores in kernel_features).
  std::string toJSONLine(const std::vector<std::pair<std::string, double>>
                             *Features = nullptr) const;
  /// The inverse of toJSONLine; the error names the key that is wrong.
  static llvm::Expected<TuningRecord> fromJSON(const llvm::json::Value &V);
};

/// Which rows a query returns; empty fields match everything.
struct TuningFilter {
  std::string KernelHash;
  std::string GpuModel;
};

struct TuningStats {
  /// Gpus: the GPU models measured on (a dry run's "none" is not one);
  /// NotMeasured: the rows of dry runs' candidates.
  int64_t Rows = 0, Kernels = 0, Gpus = 0, Verified = 0, NotMeasured = 0;
  int SchemaVersion = 0;
};

class TuningDatabase {
public:
  enum class OpenMode {
    Create,  ///< Create the file (and its directory) when it does not exist.
    Existing ///< A missing file is an error.
  };

  /// Open the database at \p Location, a SQLite file's path or a
  /// PostgreSQL URL (postgresql://... or postgres://...), creating the
  /// schema in a new or empty one (a server's database itself must exist)
  /// and migrating an older schema of ours. Errors say "'<location>' is not
  /// a cuda-opt tuning database (...)" for a file that is not SQLite or a
  /// database that holds another schema; it is not written to.
  static llvm::Expected<std::unique_ptr<TuningDatabase>>
  open(llvm::StringRef Location, OpenMode Mode = OpenMode::Create);
  ~TuningDatabase();

  /// Store \p R in its own transaction. A measurement already stored (same
  /// key, host and time) is not stored again; \p Inserted says which.
  llvm::Error add(const TuningRecord &R, bool *Inserted = nullptr);

  /// Every row \p F matches, oldest first.
  llvm::Expected<std::vector<TuningRecord>>
  query(const TuningFilter &F = {}) const;

  /// The latest stored measurement of exactly \p K, if any (tune's resume).
  llvm::Expected<std::optional<TuningRecord>> lookup(const TuningKey &K) const;

  /// The kernel model's feature vector (KernelModel::features) of the
  /// kernel with hash \p KernelHash, what the learned ranker trains on
  /// (schema version 2; the latest stored wins).
  using FeatureVector = std::vector<std::pair<std::string, double>>;
  llvm::Error putKernelFeatures(llvm::StringRef KernelHash,
                                llvm::StringRef KernelName,
                                const FeatureVector &Features);
  /// Every kernel's stored features by kernel hash; with \p Names, the
  /// kernel names stored with them, by hash, too.
  llvm::Expected<std::map<std::string, FeatureVector>>
  kernelFeatures(std::map<std::string, std::string> *Names = nullptr) const;

  llvm::Expected<TuningStats> stats() const;
  /// The kernel names the rows were recorded for (for people, and for a
  /// cheap first look: a file none of whose kernels has one of these names
  /// has nothing recorded, since a kernel's hash covers its name).
  llvm::Expected<std::vector<std::string>> kernelNames() const;

  /// The file's path, or the URL without its password: how messages name
  /// the database.
  const std::string &path() const { return Path; }

  /// The schema version this cuda-opt writes.
  static int currentSchemaVersion();

private:
  explicit TuningDatabase(std::unique_ptr<tuningdb::SqlConnection> C);
  std::string Path;
  std::unique_ptr<tuningdb::SqlConnection> Conn;
};

/// Where the database lives when --db is not given: $CUDA_OPT_TUNING_DB
/// when set (and not "off"), else $XDG_CACHE_HOME/cuda-opt/tuning.db, else
/// ~/.cache/cuda-opt/tuning.db.
std::string defaultTuningDatabasePath();

/// CUDA_OPT_TUNING_DB=off: tune uses no database unless --db names one
/// (the lit suite sets it, so that tests do not share measurements).
bool defaultTuningDatabaseOff();

/// Check a --db argument: a path, or a postgresql:// (postgres://) URL when
/// this cuda-opt was built with libpq; other URLs are an error.
llvm::Error checkTuningDatabaseLocation(llvm::StringRef Location);

/// Whether \p Location is a PostgreSQL URL (postgresql:// or postgres://).
bool isPostgresUrl(llvm::StringRef Location);

/// Whether this cuda-opt was built with libpq (CUDA_OPT_WITH_POSTGRES).
bool postgresSupported();

/// The current time as TuningRecord::MeasuredAt writes it.
std::string tuningTimestamp();

/// This machine's host name.
std::string tuningHostName();

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_TUNINGDATABASE_H

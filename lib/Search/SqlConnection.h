//===- SqlConnection.h - The two kinds of tuning database -------*- C++ -*-===//
//
// Part of cuda-opt. The thin layer under TuningDatabase: a connection to a
// SQLite file (SqliteConnection.cpp) or to a PostgreSQL server through libpq
// (PostgresConnection.cpp). TuningDatabase.cpp holds the SQL and the logic
// (schema, migrations, inserts, queries) once, for both; a connection only
// runs statements, reads and marks its schema version, and locks out other
// writers while the schema is created.
//
// Statements are written once: parameters as ?1, ?2, ... (the PostgreSQL
// side rewrites them as $1, $2, ...), in the SQL both understand
// (INSERT ... ON CONFLICT DO NOTHING, CASE instead of boolean sums). The
// schema's few type names differ (an identity column, 64-bit integers and
// doubles) and are spelt per dialect (schemaTypes).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_SEARCH_SQLCONNECTION_H
#define CUDA_OPT_LIB_SEARCH_SQLCONNECTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cuda_opt {
namespace tuningdb {

/// PRAGMA application_id of our SQLite files, and the PostgreSQL advisory
/// lock that serialises schema creation: "CuOp".
constexpr int ApplicationId = 0x43754f70;

/// One parameter of a statement.
struct SqlParam {
  enum class Kind { Text, Integer, Real } K;
  std::string Text;
  int64_t Integer = 0;
  double Real = 0;

  SqlParam(llvm::StringRef S) : K(Kind::Text), Text(S.str()) {}
  SqlParam(const std::string &S) : K(Kind::Text), Text(S) {}
  SqlParam(const char *S) : K(Kind::Text), Text(S) {}
  SqlParam(int64_t I) : K(Kind::Integer), Integer(I) {}
  SqlParam(double D) : K(Kind::Real), Real(D) {}
};

/// One row of a result, its columns numbered from 0.
class SqlRow {
public:
  virtual ~SqlRow() = default;
  virtual std::string text(int I) const = 0;
  virtual int64_t integer(int I) const = 0;
  virtual double real(int I) const = 0;
};

/// What a database holds, read without writing anything.
struct SchemaState {
  /// Our schema's version; 0 when it has none (new or empty).
  int Version = 0;
  /// Not empty: the database holds another application's tables (what).
  std::string Foreign;
};

/// The type names of the schema in one dialect.
struct SchemaTypes {
  const char *Id;      ///< A 64-bit key numbered by the database.
  const char *Integer; ///< A 64-bit integer.
  const char *Real;    ///< A double.
};

class SqlConnection {
public:
  virtual ~SqlConnection() = default;

  /// The location as messages name it (a URL without its password).
  const std::string &location() const { return Location; }

  virtual SchemaTypes schemaTypes() const = 0;

  /// Run \p Sql, one or several statements without parameters or results.
  virtual llvm::Error script(llvm::StringRef Sql, llvm::StringRef What) = 0;

  /// Run the one statement \p Sql with \p Params, calling \p OnRow for each
  /// row of its result; returns how many rows it changed.
  virtual llvm::Expected<int64_t>
  run(llvm::StringRef Sql, llvm::ArrayRef<SqlParam> Params,
      llvm::function_ref<void(const SqlRow &)> OnRow, llvm::StringRef What) = 0;

  /// The schema's version and whether the database is another
  /// application's; writes nothing. Read in a read transaction of its own,
  /// or with \p InTransaction in the one beginSchemaChange started.
  virtual llvm::Expected<SchemaState>
  readSchema(bool InTransaction = false) = 0;

  /// Called after the checks, before the first write (SQLite: WAL mode).
  virtual llvm::Error prepareForWrites() = 0;

  /// Start the transaction that creates or migrates the schema; until it
  /// ends, no other process can start one.
  virtual llvm::Error beginSchemaChange() = 0;
  /// Mark the schema as \p Version where the dialect keeps it apart from
  /// cuda_opt_migrations (SQLite's PRAGMAs), then commit.
  virtual llvm::Error commitSchemaChange(int Version) = 0;
  virtual void rollback() = 0;

protected:
  explicit SqlConnection(std::string Location)
      : Location(std::move(Location)) {}
  /// "tuning database 'LOCATION': WHAT: DETAIL".
  llvm::Error failure(llvm::StringRef What, llvm::StringRef Detail) const;

private:
  std::string Location;
};

/// "'LOCATION' is not a cuda-opt tuning database (WHY)".
llvm::Error notATuningDatabase(llvm::StringRef Location,
                               const llvm::Twine &Why);

/// The SQLite file at \p Path, opened (and with \p MayCreate created, its
/// directory too); a file that is not SQLite is refused before it is
/// written to.
llvm::Expected<std::unique_ptr<SqlConnection>> openSqlite(llvm::StringRef Path,
                                                          bool MayCreate);

/// The PostgreSQL database of \p Url (postgresql://... or postgres://...),
/// or "built without PostgreSQL support" when libpq was not found.
llvm::Expected<std::unique_ptr<SqlConnection>>
openPostgres(llvm::StringRef Url);

} // namespace tuningdb
} // namespace cuda_opt

#endif // CUDA_OPT_LIB_SEARCH_SQLCONNECTION_H

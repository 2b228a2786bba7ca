import GRDB
import GRDBSQLite

extension Statement {
    /// Binds one row through `bind`, steps the insert once and resets it: the import's millions of rows go
    /// this way rather than through GRDB's argument arrays. `bind` returns the last bind's result code, so it
    /// suits integers, nulls and one last blob or text, whose binds cannot fail before it.
    func bindAndStep(in db: Database, _ bind: (OpaquePointer) -> Int32) throws {
        let s = sqliteStatement
        sqlite3_reset(s)
        var code = bind(s)
        if code == SQLITE_OK {
            code = sqlite3_step(s)
            if code == SQLITE_DONE { code = SQLITE_OK }
        }
        // The message is read before the reset, which may replace it.
        let error = code == SQLITE_OK ? nil : DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
        sqlite3_reset(s)
        if let error { throw error }
    }
}

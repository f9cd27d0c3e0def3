#if canImport(Glibc)
import Glibc
#endif
import LodestarIO
import SystemPackage
import Testing
import TestSupport

/// Syscall's whole-file helpers, against the real file system (no fault hook: FaultInjectionTests owns it).
@Suite("Syscall whole-file helpers")
struct FileHelperTests {
    @Test func writeWholeFileCreatesAndTruncates() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("a.txt")
        try Syscall.writeWholeFile(path, Array("a longer first text\n".utf8))
        try Syscall.writeWholeFile(path, Array("short\n".utf8))
        #expect(try Syscall.readWholeFile(path) == Array("short\n".utf8))
    }

    @Test func aFailureNamesThePathAndTheStep() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("missing/a.txt")
        #expect(throws: SystemError("create", path: path, .noSuchFileOrDirectory)) { try Syscall.writeWholeFile(path, [0x41]) }
        #expect(throws: SystemError("create", path: path, .noSuchFileOrDirectory)) { try Syscall.replaceFile(path, with: [0x41]) }
        #expect(SystemError("create", path: path, .noSuchFileOrDirectory).description
                == "\(path): create failed: No such file or directory (ENOENT)")
    }

    @Test func replaceFileLeavesTheOldOrTheNewFileAndNoTemporary() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("state")
        try Syscall.replaceFile(path, with: Array("one\n".utf8))
        try Syscall.replaceFile(path, with: Array("two\n".utf8), synced: false)
        #expect(try Syscall.readWholeFile(path) == Array("two\n".utf8))
        #expect(Syscall.fileType(path + ".tmp") == nil)

        // rename(2) over a non-empty directory fails: the error names the target and the temporary file is gone.
        let occupied = dir.path("occupied")
        try Syscall.makeDirectory(occupied, mode: 0o755)
        try Syscall.writeWholeFile(occupied + "/inside", [0x41])
        let error = #expect(throws: SystemError.self) { try Syscall.replaceFile(occupied, with: [0x42], temporary: dir.path("t")) }
        #expect(error?.operation == "rename" && error?.path == occupied)
        #expect(Syscall.fileType(dir.path("t")) == nil)
        #expect(Syscall.fileType(occupied) == S_IFDIR)
    }

    @Test func directoryEntriesListsNamesWithoutDots() throws {
        let dir = try TemporaryDirectory()
        try Syscall.writeWholeFile(dir.path("b"), [])
        try Syscall.makeDirectory(dir.path("a"), mode: 0o700)
        try Syscall.makeDirectory(dir.path("a"), mode: 0o700) // an existing directory is fine
        #expect(try Syscall.directoryEntries(dir.url.path).sorted() == ["a", "b"])
        #expect(throws: Errno.noSuchFileOrDirectory) { try Syscall.directoryEntries(dir.path("none")) }
    }
}

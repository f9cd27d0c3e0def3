// OutputSink, FileDescriptorSink, FIFOSink and SystemError moved to LodestarIO (the syscall layer); modules that
// import Pipeline keep seeing them.
@_exported import LodestarIO

"""Name lists behind the studio rule set's `stdlib` mode (`core.scoring.normalise_studio`; the paper's lists are
`core.scoring.normalise_paper_names`).

Hard-coded where the running interpreter cannot answer (Node, the JDK), so a studio table
comes out the same on every machine. Each list says where it came from and what it leaves
out on purpose: a name left out is one that benchmark programs commonly define themselves,
and dropping it would delete real program edges from both the truth and the predictions.
"""
from __future__ import annotations

import builtins
import sys

# --- Python -----------------------------------------------------------------------------

# Modules that Python 3.11 ships but later versions removed (PEP 594, distutils, imp):
# kept so the set does not shrink when the app runs on a newer interpreter.
_PYTHON_REMOVED_AFTER_3_11 = frozenset({
    "aifc", "asynchat", "asyncore", "audioop", "cgi", "cgitb", "chunk", "crypt",
    "distutils", "imghdr", "imp", "lib2to3", "mailcap", "msilib", "nis", "nntplib",
    "ossaudiodev", "pipes", "smtpd", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib",
})

PYTHON_STDLIB_MODULES = frozenset(sys.stdlib_module_names) | _PYTHON_REMOVED_AFTER_3_11

# `site` adds these to builtins; listed so `python -S` gives the same answer.
PYTHON_BUILTIN_NAMES = frozenset(dir(builtins)) | {
    "copyright", "credits", "exit", "help", "license", "quit",
}

# Builtin type name -> its attribute names (`list` -> {"append", ...}), exceptions included.
PYTHON_BUILTIN_TYPE_ATTRS = {
    name: frozenset(dir(value))
    for name, value in vars(builtins).items()
    if isinstance(value, type)
}

# --- JavaScript -------------------------------------------------------------------------

# `Object.getOwnPropertyNames(globalThis)` of a Node 20 script (ECMAScript globals, Node
# globals and the web-platform globals Node exposes), plus the module-scope names every
# CommonJS module sees. Left out: web-platform classes with generic names that programs
# define themselves (Blob, Crypto, CustomEvent, Event, File, FormData, Headers,
# Performance, Request, Response). Browser-only globals (window, document) are not here.
JS_GLOBALS = frozenset({
    # ECMAScript value properties and functions
    "globalThis", "Infinity", "NaN", "undefined",
    "eval", "isFinite", "isNaN", "parseFloat", "parseInt",
    "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent",
    "escape", "unescape",
    # ECMAScript constructors and namespaces
    "AggregateError", "Array", "ArrayBuffer", "Atomics", "BigInt", "BigInt64Array",
    "BigUint64Array", "Boolean", "DataView", "Date", "Error", "EvalError",
    "FinalizationRegistry", "Float32Array", "Float64Array", "Function", "Int16Array",
    "Int32Array", "Int8Array", "Intl", "JSON", "Map", "Math", "Number", "Object",
    "Promise", "Proxy", "RangeError", "ReferenceError", "Reflect", "RegExp", "Set",
    "SharedArrayBuffer", "String", "Symbol", "SyntaxError", "TypeError", "URIError",
    "Uint16Array", "Uint32Array", "Uint8Array", "Uint8ClampedArray", "WeakMap", "WeakRef",
    "WeakSet",
    # Node globals
    "Buffer", "console", "global", "process", "performance", "crypto", "fetch",
    "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval",
    "clearImmediate", "queueMicrotask", "structuredClone", "atob", "btoa",
    # CommonJS module scope
    "require", "module", "exports", "__dirname", "__filename",
    # Web-platform globals in Node 20
    "AbortController", "AbortSignal", "BroadcastChannel", "ByteLengthQueuingStrategy",
    "CompressionStream", "CountQueuingStrategy", "CryptoKey", "DOMException",
    "DecompressionStream", "EventTarget", "MessageChannel", "MessageEvent", "MessagePort",
    "PerformanceEntry", "PerformanceMark", "PerformanceMeasure", "PerformanceObserver",
    "PerformanceObserverEntryList", "PerformanceResourceTiming",
    "ReadableByteStreamController", "ReadableStream", "ReadableStreamBYOBReader",
    "ReadableStreamBYOBRequest", "ReadableStreamDefaultController",
    "ReadableStreamDefaultReader", "SubtleCrypto", "TextDecoder", "TextDecoderStream",
    "TextEncoder", "TextEncoderStream", "TransformStream",
    "TransformStreamDefaultController", "URL", "URLSearchParams", "WebAssembly",
    "WritableStream", "WritableStreamDefaultController", "WritableStreamDefaultWriter",
})

# Lower-case globals that are called on their own (`parseInt(s)`), so `main.parseInt` is
# dropped. Other lower-case globals and the core module names are dropped after a module
# prefix only when more follows (`main.process.exit`, not a user's `main.process`);
# `escape`, `unescape` and `fetch` are left out because programs define functions so named.
JS_GLOBAL_FUNCTIONS = frozenset({
    "eval", "isFinite", "isNaN", "parseFloat", "parseInt",
    "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent",
    "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval",
    "clearImmediate", "queueMicrotask", "structuredClone", "atob", "btoa", "require",
})

# `require('module').builtinModules` in Node 20 (v20.20.2). Modules that exist only with the
# `node:` prefix (node:test, node:sqlite, node:sea) are covered by the prefix rule.
NODE_CORE_MODULES = frozenset({
    "_http_agent", "_http_client", "_http_common", "_http_incoming", "_http_outgoing",
    "_http_server", "_stream_duplex", "_stream_passthrough", "_stream_readable",
    "_stream_transform", "_stream_wrap", "_stream_writable", "_tls_common", "_tls_wrap",
    "assert", "assert/strict", "async_hooks", "buffer", "child_process", "cluster",
    "console", "constants", "crypto", "dgram", "diagnostics_channel", "dns",
    "dns/promises", "domain", "events", "fs", "fs/promises", "http", "http2", "https",
    "inspector", "inspector/promises", "module", "net", "os", "path", "path/posix",
    "path/win32", "perf_hooks", "process", "punycode", "querystring", "readline",
    "readline/promises", "repl", "stream", "stream/consumers", "stream/promises",
    "stream/web", "string_decoder", "sys", "timers", "timers/promises", "tls",
    "trace_events", "tty", "url", "util", "util/types", "v8", "vm", "wasi",
    "worker_threads", "zlib",
})

# --- Java -------------------------------------------------------------------------------

JAVA_PACKAGE_PREFIXES = (
    "java.", "javax.", "jdk.", "sun.", "com.sun.",
    "org.w3c.", "org.xml.", "org.ietf.", "org.omg.",
)

# Public types of java.lang, java.util, java.util.function, java.util.stream and java.io
# (JDK 21), plus the most used ones of java.math, java.nio.file, java.text, java.time and
# java.util.concurrent(.atomic/.locks). Left out because programs in the default package
# commonly declare classes so named: Compiler, Condition, Console, Currency, Formatter,
# LinkedList, Lock, Matcher, Module, Observable, Observer, Package, Path, Pattern, Process,
# Queue, Record, Stack, Timer, Vector.
JAVA_BARE_CLASSES = frozenset({
    # java.lang
    "AbstractMethodError", "Appendable", "ArithmeticException",
    "ArrayIndexOutOfBoundsException", "ArrayStoreException", "AssertionError",
    "AutoCloseable", "Boolean", "BootstrapMethodError", "Byte", "CharSequence", "Character",
    "Class", "ClassCastException", "ClassCircularityError", "ClassFormatError",
    "ClassLoader", "ClassNotFoundException", "ClassValue", "CloneNotSupportedException",
    "Cloneable", "Comparable", "Deprecated", "Double", "Enum",
    "EnumConstantNotPresentException", "Error", "Exception", "ExceptionInInitializerError",
    "Float", "FunctionalInterface", "IllegalAccessError", "IllegalAccessException",
    "IllegalArgumentException", "IllegalCallerException", "IllegalMonitorStateException",
    "IllegalStateException", "IllegalThreadStateException", "IncompatibleClassChangeError",
    "IndexOutOfBoundsException", "InheritableThreadLocal", "InstantiationError",
    "InstantiationException", "Integer", "InternalError", "InterruptedException",
    "Iterable", "LayerInstantiationException", "LinkageError", "Long", "MatchException",
    "Math", "ModuleLayer", "NegativeArraySizeException", "NoClassDefFoundError",
    "NoSuchFieldError", "NoSuchFieldException", "NoSuchMethodError",
    "NoSuchMethodException", "NullPointerException", "Number", "NumberFormatException",
    "Object", "OutOfMemoryError", "Override", "ProcessBuilder", "ProcessHandle", "Readable",
    "ReflectiveOperationException", "Runnable", "Runtime", "RuntimeException",
    "RuntimePermission", "SafeVarargs", "SecurityException", "SecurityManager", "Short",
    "StackOverflowError", "StackTraceElement", "StackWalker", "StrictMath", "String",
    "StringBuffer", "StringBuilder", "StringIndexOutOfBoundsException", "SuppressWarnings",
    "System", "Thread", "ThreadDeath", "ThreadGroup", "ThreadLocal", "Throwable",
    "TypeNotPresentException", "UnknownError", "UnsatisfiedLinkError",
    "UnsupportedClassVersionError", "UnsupportedOperationException", "VerifyError",
    "VirtualMachineError", "Void", "WrongThreadException",
    # java.util
    "AbstractCollection", "AbstractList", "AbstractMap", "AbstractQueue",
    "AbstractSequentialList", "AbstractSet", "ArrayDeque", "ArrayList", "Arrays", "Base64",
    "BitSet", "Calendar", "Collection", "Collections", "Comparator",
    "ConcurrentModificationException", "Date", "Deque", "Dictionary",
    "DoubleSummaryStatistics", "EmptyStackException", "EnumMap", "EnumSet", "Enumeration",
    "EventListener", "EventObject", "Formattable", "GregorianCalendar", "HashMap",
    "HashSet", "Hashtable", "HexFormat", "IdentityHashMap", "IllegalFormatException",
    "InputMismatchException", "IntSummaryStatistics", "Iterator", "LinkedHashMap",
    "LinkedHashSet", "List", "ListIterator", "Locale", "LongSummaryStatistics", "Map",
    "MissingResourceException", "NavigableMap", "NavigableSet", "NoSuchElementException",
    "Objects", "Optional", "OptionalDouble", "OptionalInt", "OptionalLong",
    "PrimitiveIterator", "PriorityQueue", "Properties", "PropertyResourceBundle", "Random",
    "RandomAccess", "ResourceBundle", "Scanner", "SequencedCollection", "SequencedMap",
    "SequencedSet", "ServiceLoader", "Set", "SimpleTimeZone", "SortedMap", "SortedSet",
    "Spliterator", "Spliterators", "SplittableRandom", "StringJoiner", "StringTokenizer",
    "TimeZone", "TimerTask", "TooManyListenersException", "TreeMap", "TreeSet", "UUID",
    "WeakHashMap",
    # java.util.function
    "BiConsumer", "BiFunction", "BiPredicate", "BinaryOperator", "BooleanSupplier",
    "Consumer", "DoubleBinaryOperator", "DoubleConsumer", "DoubleFunction",
    "DoublePredicate", "DoubleSupplier", "DoubleToIntFunction", "DoubleToLongFunction",
    "DoubleUnaryOperator", "Function", "IntBinaryOperator", "IntConsumer", "IntFunction",
    "IntPredicate", "IntSupplier", "IntToDoubleFunction", "IntToLongFunction",
    "IntUnaryOperator", "LongBinaryOperator", "LongConsumer", "LongFunction",
    "LongPredicate", "LongSupplier", "LongToDoubleFunction", "LongToIntFunction",
    "LongUnaryOperator", "ObjDoubleConsumer", "ObjIntConsumer", "ObjLongConsumer",
    "Predicate", "Supplier", "ToDoubleBiFunction", "ToDoubleFunction", "ToIntBiFunction",
    "ToIntFunction", "ToLongBiFunction", "ToLongFunction", "UnaryOperator",
    # java.util.stream
    "BaseStream", "Collector", "Collectors", "DoubleStream", "IntStream", "LongStream",
    "Stream", "StreamSupport",
    # java.io
    "BufferedInputStream", "BufferedOutputStream", "BufferedReader", "BufferedWriter",
    "ByteArrayInputStream", "ByteArrayOutputStream", "CharArrayReader", "CharArrayWriter",
    "Closeable", "DataInput", "DataInputStream", "DataOutput", "DataOutputStream",
    "EOFException", "Externalizable", "File", "FileDescriptor", "FileFilter",
    "FileInputStream", "FileNotFoundException", "FileOutputStream", "FileReader",
    "FileWriter", "FilenameFilter", "FilterInputStream", "FilterOutputStream",
    "FilterReader", "FilterWriter", "Flushable", "IOError", "IOException", "InputStream",
    "InputStreamReader", "InterruptedIOException", "InvalidClassException",
    "InvalidObjectException", "LineNumberReader", "NotSerializableException",
    "ObjectInputStream", "ObjectOutputStream", "ObjectStreamException", "OutputStream",
    "OutputStreamWriter", "PipedInputStream", "PipedOutputStream", "PipedReader",
    "PipedWriter", "PrintStream", "PrintWriter", "PushbackInputStream", "PushbackReader",
    "RandomAccessFile", "Reader", "SequenceInputStream", "Serializable",
    "StreamCorruptedException", "StreamTokenizer", "StringReader", "StringWriter",
    "UTFDataFormatException", "UncheckedIOException", "UnsupportedEncodingException",
    "Writer",
    # java.math, java.nio.file, java.nio.charset, java.text, java.time
    "BigDecimal", "BigInteger", "MathContext", "RoundingMode",
    "Files", "Paths", "StandardCharsets",
    "DecimalFormat", "MessageFormat", "NumberFormat", "SimpleDateFormat",
    "ChronoUnit", "DateTimeFormatter", "Duration", "Instant", "LocalDate",
    "LocalDateTime", "LocalTime", "ZoneId", "ZonedDateTime",
    # java.util.concurrent, .atomic, .locks
    "ArrayBlockingQueue", "BlockingQueue", "Callable", "CompletableFuture",
    "ConcurrentHashMap", "ConcurrentLinkedQueue", "CopyOnWriteArrayList", "CountDownLatch",
    "CyclicBarrier", "ExecutionException", "ExecutorService", "Executors", "ForkJoinPool",
    "Future", "LinkedBlockingQueue", "ScheduledExecutorService", "Semaphore",
    "ThreadLocalRandom", "TimeUnit",
    "AtomicBoolean", "AtomicInteger", "AtomicLong", "AtomicReference",
    "ReentrantLock", "ReentrantReadWriteLock",
})

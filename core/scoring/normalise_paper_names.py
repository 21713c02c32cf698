"""The name lists of the paper's `stdlib` drop rule (docs/benchmark.md "Metric (paper parity)").

Facts about the TraceEval release's metric, recorded as data: the same lists as
`tests/parity/stdlib_names.json`, which a test holds them to. Python's lists are not here: the
paper takes them from the running interpreter (`core.scoring.normalise_paper`).
"""

# A first part, a second-to-last part or a last part among these is dropped.
JS_GLOBALS = frozenset({
    "AggregateError", "Array", "ArrayBuffer", "AsyncFunction", "AsyncGenerator", "AsyncGeneratorFunction",
    "AsyncIterator", "Atomics", "BigInt", "BigInt64Array", "BigUint64Array", "Boolean", "Buffer",
    "DataView", "Date", "Error", "EvalError", "FinalizationRegistry", "Float32Array", "Float64Array",
    "Function", "Generator", "GeneratorFunction", "Int16Array", "Int32Array", "Int8Array", "InternalError",
    "Intl", "Iterator", "JSON", "Map", "Math", "Number", "Object", "Promise", "Proxy", "RangeError",
    "ReferenceError", "Reflect", "RegExp", "Set", "SharedArrayBuffer", "String", "Symbol", "SyntaxError",
    "TextDecoder", "TextEncoder", "TypeError", "URIError", "URL", "URLSearchParams", "Uint16Array",
    "Uint32Array", "Uint8Array", "Uint8ClampedArray", "WeakMap", "WeakRef", "WeakSet", "console",
    "globalThis"
})

# A whole name or a last part among these is dropped.
JS_GLOBAL_FUNCTIONS = frozenset({
    "atob", "btoa", "clearImmediate", "clearInterval", "clearTimeout", "decodeURI", "decodeURIComponent",
    "encodeURI", "encodeURIComponent", "eval", "fetch", "isFinite", "isNaN", "parseFloat", "parseInt",
    "queueMicrotask", "require", "setImmediate", "setInterval", "setTimeout", "structuredClone"
})

# A first part or a second-to-last part among these is dropped (and any `node:` first part).
NODE_CORE_MODULES = frozenset({
    "assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto",
    "dgram", "diagnostics_channel", "dns", "domain", "events", "fs", "http", "http2", "https", "inspector",
    "module", "net", "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl",
    "stream", "string_decoder", "sys", "timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm",
    "wasi", "worker_threads", "zlib"
})

# A head starting with one of these is dropped.
JAVA_PACKAGE_PREFIXES = (
    "java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.dom.", "org.xml.sax.", "org.ietf.jgss.",
    "org.omg."
)

# A head without a dot that is one of these is dropped.
JAVA_BARE_CLASSES = frozenset({
    "ArrayBlockingQueue", "ArrayDeque", "ArrayIndexOutOfBoundsException", "ArrayList", "Arrays",
    "AssertionError", "AtomicBoolean", "AtomicInteger", "AtomicLong", "AtomicReference", "AutoCloseable",
    "Base64", "BiConsumer", "BiFunction", "BiPredicate", "BigDecimal", "BigInteger", "BinaryOperator",
    "BitSet", "BlockingQueue", "Boolean", "BufferedInputStream", "BufferedOutputStream", "BufferedReader",
    "BufferedWriter", "Byte", "ByteArrayInputStream", "ByteArrayOutputStream", "ByteBuffer", "Calendar",
    "CallableStatement", "Certificate", "Channel", "Channels", "CharBuffer", "CharSequence", "Character",
    "Charset", "CharsetDecoder", "CharsetEncoder", "ChoiceFormat", "Class", "ClassCastException",
    "ClassLoader", "ClassNotFoundException", "Clock", "Cloneable", "Collection", "Collections", "Collector",
    "Collectors", "Comparable", "Comparator", "CompletableFuture", "ConcurrentHashMap",
    "ConcurrentSkipListMap", "ConcurrentSkipListSet", "Condition", "Connection", "Consumer",
    "CountDownLatch", "Currency", "CyclicBarrier", "DataInputStream", "DataOutputStream",
    "DatabaseMetaData", "Date", "DateFormat", "DateTimeFormatter", "DayOfWeek", "DecimalFormat", "Deque",
    "Double", "DoubleBuffer", "DoubleStream", "Driver", "DriverManager", "Duration", "EOFException", "Enum",
    "EnumMap", "EnumSet", "Enumeration", "Error", "Exception", "Executor", "ExecutorService", "Executors",
    "Externalizable", "FieldPosition", "File", "FileChannel", "FileInputStream", "FileNotFoundException",
    "FileOutputStream", "FileReader", "FileSystem", "FileSystems", "FileWriter", "Files", "Float",
    "FloatBuffer", "ForkJoinPool", "Format", "Formatter", "Function", "Future", "GregorianCalendar",
    "Handler", "HashMap", "HashSet", "Hashtable", "HttpServlet", "HttpServletRequest",
    "HttpServletResponse", "HttpURLConnection", "IOException", "IdentityHashMap",
    "IllegalArgumentException", "IllegalStateException", "IndexOutOfBoundsException", "Inet4Address",
    "Inet6Address", "InetAddress", "InetSocketAddress", "InputStream", "InputStreamReader", "Instant",
    "IntBuffer", "IntStream", "Integer", "Iterable", "Iterator", "Key", "KeyPair", "KeyPairGenerator",
    "KeyStore", "Level", "LinkedBlockingQueue", "LinkedHashMap", "LinkedHashSet", "LinkedList", "List",
    "ListIterator", "LocalDate", "LocalDateTime", "LocalTime", "Locale", "Lock", "LogRecord", "Logger",
    "Long", "LongBuffer", "LongStream", "MalformedURLException", "Map", "MatchResult", "Matcher", "Math",
    "MathContext", "MessageDigest", "MessageDigestSpi", "MessageFormat", "Month", "MonthDay",
    "NavigableMap", "NavigableSet", "NoSuchAlgorithmException", "NullPointerException", "Number",
    "NumberFormat", "NumberFormatException", "Object", "ObjectInputStream", "ObjectOutputStream", "Objects",
    "OffsetDateTime", "OffsetTime", "OpenOption", "Optional", "OptionalDouble", "OptionalInt",
    "OptionalLong", "OutOfMemoryError", "OutputStream", "OutputStreamWriter", "Package", "ParseException",
    "ParsePosition", "Path", "Paths", "Pattern", "Period", "Phaser", "PipedInputStream",
    "PipedOutputStream", "Predicate", "PreparedStatement", "PrintStream", "PrintWriter", "PriorityQueue",
    "PrivateKey", "Process", "ProcessBuilder", "Properties", "Provider", "PublicKey", "Queue", "Random",
    "ReadWriteLock", "Reader", "Record", "ReentrantLock", "ReentrantReadWriteLock", "ResourceBundle",
    "ResultSet", "ResultSetMetaData", "RoundingMode", "Runnable", "RuntimeException", "SQLException",
    "Scanner", "ScheduledExecutorService", "SecureRandom", "Security", "Semaphore", "Serializable",
    "ServerSocket", "ServerSocketChannel", "Servlet", "ServletRequest", "ServletResponse", "Set", "Short",
    "Signature", "SignatureException", "SimpleDateFormat", "SimpleTimeZone", "Socket", "SocketChannel",
    "SortedMap", "SortedSet", "Spliterator", "Stack", "StackOverflowError", "StandardCharsets",
    "StandardOpenOption", "Statement", "Stream", "StrictMath", "String", "StringBuffer", "StringBuilder",
    "StringJoiner", "StringReader", "StringTokenizer", "StringWriter", "Supplier", "System", "Thread",
    "ThreadGroup", "ThreadLocalRandom", "ThreadPoolExecutor", "Throwable", "Time", "TimeZone", "Timer",
    "TimerTask", "Timestamp", "TreeMap", "TreeSet", "URI", "URISyntaxException", "URL", "URLConnection",
    "UUID", "UnaryOperator", "UnknownHostException", "UnsupportedOperationException", "Vector", "Void",
    "WeakHashMap", "Writer", "Year", "YearMonth", "ZoneId", "ZoneOffset", "ZonedDateTime"
})

# `<type>.<attribute>` is dropped when the attribute is in dir(<type>).
PYTHON_BUILTIN_TYPES = (
    "list", "dict", "set", "tuple", "str", "bytes", "bytearray", "frozenset", "int", "float", "complex",
    "bool", "type", "object", "memoryview", "range", "slice"
)

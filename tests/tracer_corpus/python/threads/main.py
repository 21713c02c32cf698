import threading

results = []


def work(n):
    results.append(compute(n))


def compute(n):
    return n * n


class Worker(threading.Thread):
    def run(self):
        results.append(compute(10))


def main():
    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    w = Worker()
    w.start()
    for t in threads + [w]:
        t.join()
    return sorted(results)


print(main())

def repeat(times):
    def decorate(func):
        def wrapper(*args):
            result = None
            for _ in range(times):
                result = func(*args)
            return result
        return wrapper
    return decorate


@repeat(3)
def tick(x):
    return x + 1


print(tick(1))

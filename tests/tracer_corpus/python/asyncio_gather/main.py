import asyncio


async def fetch(n):
    await asyncio.sleep(0)
    return double(n)


def double(n):
    return n * 2


async def ping():
    return "pong"


async def main():
    results = await asyncio.gather(fetch(1), ping())
    return results


print(asyncio.run(main()))

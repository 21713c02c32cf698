import asyncio


async def job(n):
    await asyncio.sleep(0)
    return square(n)


def square(n):
    return n * n


async def spawn():
    return [asyncio.create_task(job(i)) for i in range(2)]


async def main():
    tasks = await spawn()
    return [await t for t in tasks]


print(asyncio.run(main()))

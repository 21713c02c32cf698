import asyncio


async def ticks(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield label(i)


def label(i):
    return f"t{i}"


async def main():
    seen = []
    async for tick in ticks(2):
        seen.append(tick)
    return seen


print(asyncio.run(main()))

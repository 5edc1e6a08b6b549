from .command import console

console()

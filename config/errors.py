"""The one shape of a refused request, shared by every service and edge."""


class Refused(Exception):
    """A refused request: `code` for programs, `message` for people. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message

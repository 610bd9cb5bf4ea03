class ClientError(Exception):
    """A problem the user can fix (bad file, wrong token, server down): one `error:` line, exit 2."""

"""(to be written)"""


def outputs(protocol):
    return {}

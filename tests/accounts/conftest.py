from judge_cast import alice, bob, charlie, fake_engine, problem  # noqa: F401  (fixtures)
from mail_server import inbox, mail_inline  # noqa: F401  (fixtures)

"""The private CA and the server certificate of the main host's published Redis and Postgres
(scripts/up --join-line, --rotate-certs; docs/hosts.md, "TLS between hosts").

Run by scripts/up inside the web image (Python's ``cryptography`` is installed there), as root,
with two volumes of the stack: CA_DIR (the CA's key: mounted by nothing else) and OUT_DIR (the
CA's certificate and the server's certificate and key: mounted read-only by redis and
postgres). Prints the CA's certificate (PEM) on stdout: the join line carries it.

  make NAME...    the CA once (kept after); a server certificate for NAME... (IP addresses or
                  host names: those the worker hosts reach this machine at) unless one for the
                  same names exists
  rotate NAME...  a new server certificate (and key) signed by the same CA, always
  ca              print the CA's certificate only
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_DAYS = 3650
SERVER_DAYS = 825  # what browsers and most clients accept for a server certificate


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Tensor Judge"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common)])  # fmt: skip


def _write(path: Path, data: bytes, mode: int) -> None:
    tmp = path.with_suffix(path.suffix + ".new")
    tmp.write_bytes(data)
    os.chmod(tmp, mode)
    tmp.replace(path)  # atomic: a server reloading meanwhile reads the old file or the new one


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())  # fmt: skip


def _san(names: list[str]) -> x509.SubjectAlternativeName:
    entries: list[x509.GeneralName] = []
    for name in names:
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(name.strip("[]"))))
        except ValueError:
            entries.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(entries)


def ca_ensure(
    ca_dir: Path, out_dir: Path
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate, bool]:
    """The CA's key and certificate, and whether they were made now."""
    key_path, cert_path = ca_dir / "ca.key", ca_dir / "ca.pem"
    made = False
    if key_path.exists() and cert_path.exists():
        key = serialization.load_pem_private_key(key_path.read_bytes(), None)
        assert isinstance(key, ec.EllipticCurvePrivateKey)
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    else:
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        name = _name(f"Tensor Judge private CA {os.urandom(4).hex()}")
        cert = (
            x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, key_cert_sign=True, crl_sign=True,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256())
        )  # fmt: skip
        ca_dir.mkdir(parents=True, exist_ok=True)
        _write(key_path, _pem_key(key), 0o600)
        _write(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)
        print(f"tls_certs: made a private CA ({CA_DAYS} days)", file=sys.stderr)
        made = True
    out_dir.mkdir(parents=True, exist_ok=True)
    ca_pem = cert.public_bytes(serialization.Encoding.PEM)
    if not (out_dir / "ca.pem").exists() or (out_dir / "ca.pem").read_bytes() != ca_pem:
        _write(out_dir / "ca.pem", ca_pem, 0o644)
    return key, cert, made


def server_issue(ca_key: ec.EllipticCurvePrivateKey, ca_cert: x509.Certificate, out_dir: Path,
                 names: list[str]) -> None:  # fmt: skip
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(_name(names[0])).issuer_name(ca_cert.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=SERVER_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                     key_encipherment=False, data_encipherment=False,
                                     key_agreement=True, key_cert_sign=False, crl_sign=False,
                                     encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(_san(names), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                       critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                       critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    # The key is readable inside the volume (0644): redis and postgres, which alone mount it,
    # run as users of their own images (postgres copies it to a file of its own, 0600).
    _write(out_dir / "server.key", _pem_key(key), 0o644)
    _write(out_dir / "server.pem", cert.public_bytes(serialization.Encoding.PEM), 0o644)
    _write(out_dir / "names", ("\n".join(names) + "\n").encode(), 0o644)
    print(f"tls_certs: server certificate for {', '.join(names)} ({SERVER_DAYS} days, serial "
          f"{cert.serial_number:x})", file=sys.stderr)  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["make", "rotate", "ca"])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--ca-dir", type=Path, default=Path("/tls-ca"))
    parser.add_argument("--out-dir", type=Path, default=Path("/tls"))
    args = parser.parse_args(argv)
    names = [n for n in dict.fromkeys(args.names) if n]
    if args.action != "ca" and not names:
        parser.error("name the addresses (or host names) worker hosts reach this machine at")
    ca_key, ca_cert, made = ca_ensure(args.ca_dir, args.out_dir)
    if args.action != "ca":
        kept = args.out_dir / "names"
        same = kept.exists() and kept.read_text().split() == names
        if (
            made
            or args.action == "rotate"
            or not same
            or not (args.out_dir / "server.pem").exists()
        ):
            server_issue(ca_key, ca_cert, args.out_dir, names)
    sys.stdout.write(ca_cert.public_bytes(serialization.Encoding.PEM).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

// The parts of OpenSSL's libcrypto Larder uses: EVP AES-256-GCM, PBKDF2-HMAC-SHA256,
// HMAC-SHA256, RAND_bytes.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>

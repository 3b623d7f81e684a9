import NFCTrace
print("nfctrace")

import NFCTrace

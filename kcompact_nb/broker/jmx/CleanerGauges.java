// Prints the log cleaner's gauges of a Kafka broker, one "name=value" line each, read over JMX.
// Run with the JDK's source launcher: java CleanerGauges.java HOST:PORT
import java.util.Set;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

public class CleanerGauges {
    public static void main(String[] args) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + args[0] + "/jmxrmi");
        try (JMXConnector connector = JMXConnectorFactory.connect(url)) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            for (String type : new String[] {"LogCleaner", "LogCleanerManager"}) {
                Set<ObjectName> names = server.queryNames(new ObjectName("kafka.log:type=" + type + ",*"), null);
                for (ObjectName name : names) {
                    System.out.println(name.getKeyProperty("name") + "=" + server.getAttribute(name, "Value"));
                }
            }
        }
    }
}
